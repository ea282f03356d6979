/**
 * Entry of the embedded consumers' worker thread when run from source (consumer-thread.ts; the
 * build in dist/ starts the compiled consumer-thread-worker.js directly). Plain JavaScript on purpose:
 * Node 20 does not apply the parent's `--import tsx` to a Worker, so this registers tsx's loader
 * in the worker (https://tsx.is/dev-api/register-esm) and then loads the TypeScript worker body.
 */
import { register } from 'tsx/esm/api';

register();
await import('./consumer-thread-worker.ts');
