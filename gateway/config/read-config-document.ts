/**
 * Reads the Tollgate config file (`TOLLGATE_CONFIG`, YAML or JSON) as a plain document. Both the
 * gateway and the consumers process read the same file, each validating the parts it uses.
 */
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

/**
 * Replaces `${VAR}` / `${VAR:-default}` in every string of a parsed document. A reference to an
 * unset variable without default is reported as a problem (path + name).
 */
export function expandEnvironment(value: unknown, env: NodeJS.ProcessEnv, problems: string[], path = ''): unknown {
  if (typeof value === 'string') {
    return value.replace(
      /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
      (_, name: string, fallback: string | undefined) => {
        const found = env[name];
        if (found !== undefined && found !== '') return found;
        if (fallback !== undefined) return fallback;
        problems.push(`${path || '(root)'}: environment variable ${name} is not set`);
        return '';
      },
    );
  }
  if (Array.isArray(value)) return value.map((item, i) => expandEnvironment(item, env, problems, `${path}[${i}]`));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, expandEnvironment(v, env, problems, path ? `${path}.${k}` : k)]),
    );
  }
  return value;
}

/**
 * Reads and parses `path` (`.json` as JSON, anything else as YAML). Problems (unreadable,
 * unparsable) are appended to `problems` and undefined is returned.
 */
export function readConfigDocument(path: string, problems: string[]): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    problems.push(`TOLLGATE_CONFIG: cannot read ${path}: ${(error as Error).message}`);
    return undefined;
  }
  try {
    return path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    problems.push(`${path}: not valid ${path.endsWith('.json') ? 'JSON' : 'YAML'}: ${(error as Error).message}`);
    return undefined;
  }
}
