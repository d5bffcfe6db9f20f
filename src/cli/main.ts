/** `npm run cli -- <command> [flags]`: the operator CLI. Configuration as for the app (env and .env). */
import { loadDotEnvFile } from '../config.js';
import { processIo } from './output.js';
import { runCli } from './run.js';

loadDotEnvFile();
process.exitCode = await runCli(process.argv.slice(2), { io: processIo() });
