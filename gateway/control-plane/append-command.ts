/**
 * Running a control-plane command for an HTTP caller (the admin API and the console alike): the
 * command builds its events from the current view, they are appended to the config topic, and the
 * result is returned once the local view has applied them.
 */
import type { ControlEvent } from '../../schemas/control-plane/control-plane-events.ts';
import { AdminHttpError } from './admin-errors.ts';
import type { CommandContext, CommandResult, CommandSecrets } from './commands-common.ts';

/** Where a command's events go. */
export interface CommandTarget {
  /** Publishes events to the config topic; resolves once they are applied to the local view. */
  append(events: ReadonlyArray<ControlEvent>): Promise<void>;
  readonly secrets: CommandSecrets;
}

/**
 * Runs `command` as `actor` at `now` (ms since epoch), appends its events and returns its result.
 * @throws CommandError from the command (400/404/409); AdminHttpError 503 when the append is not
 *   confirmed (event log down or slow) — the change may still apply.
 */
export async function appendCommand<T>(
  target: CommandTarget,
  actor: string,
  now: number,
  command: (ctx: CommandContext) => CommandResult<T>,
): Promise<T> {
  const { events, result } = command({ now, actor, secrets: target.secrets });
  try {
    await target.append(events);
  } catch (cause) {
    throw Object.assign(
      new AdminHttpError(
        503,
        'control plane unavailable: the change could not be confirmed (see the gateway log); it may still apply',
      ),
      { cause },
    );
  }
  return result;
}
