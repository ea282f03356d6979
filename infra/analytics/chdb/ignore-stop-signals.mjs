/**
 * Imported first by the chdb engine's process (chdb-host.mjs), before the engine's library loads:
 * from then on SIGTERM and SIGINT do not end the process
 * (https://nodejs.org/api/process.html#signal-events: a listener replaces the default action).
 * The engine stays for the server's drain, whose last inserts it serves, and goes when the server
 * closes the IPC channel or exits.
 */
process.on('SIGTERM', () => undefined);
process.on('SIGINT', () => undefined);
