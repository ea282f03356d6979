/**
 * Running a control-plane command in a test: `runCommand` applies its events to a
 * RecordingControlPlane and returns its result; `commandRefusal` returns the CommandError it
 * throws as plain data (and fails the test when it does not refuse).
 */
import { CommandError, type CommandResult } from '../../../gateway/control-plane/commands.ts';
import type { RecordingControlPlane } from './recording-control-plane.ts';

/** Runs a command and applies its events; returns its result. */
export async function runCommand<T>(cp: RecordingControlPlane, command: () => CommandResult<T>): Promise<T> {
  const { events, result } = command();
  await cp.append([...events]);
  return result;
}

/** The CommandError a command throws, as `{ status, message, field }`. @throws Error when it does not refuse. */
export function commandRefusal(command: () => unknown): { status: number; message: string; field: string | undefined } {
  try {
    command();
  } catch (error) {
    if (!(error instanceof CommandError)) throw error;
    return { status: error.status, message: error.message, field: error.field };
  }
  throw new Error('command did not refuse');
}
