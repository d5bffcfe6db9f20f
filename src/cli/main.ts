/**
 * `npm run cli -- <command> [flags]` (from source) or `node dist/cli/main.js <command> [flags]` (compiled, in
 * production): the operator CLI. Configuration as for the app (env and `.env`); on a
 * development machine (NODE_ENV not production) also the settings `npm run dev` wrote (`.env.development`,
 * or DEV_ENV_FILE), so the CLI works on the running dev setup with nothing to set. The real environment
 * and `.env` win over them.
 */
import { existsSync } from 'node:fs';
import { devEnvFilePath, loadDotEnvFile } from '../config.js';
import { processIo } from './output.js';
import { runCli } from './run.js';

loadDotEnvFile();
const devEnvFile = devEnvFilePath();
if (process.env.NODE_ENV !== 'production' && existsSync(devEnvFile)) {
  loadDotEnvFile(devEnvFile);
  process.stderr.write(`(using the dev settings in ${devEnvFile}, written by npm run dev)\n`);
}
process.exitCode = await runCli(process.argv.slice(2), { io: processIo() });
