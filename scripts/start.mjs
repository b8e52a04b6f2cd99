// `npm start`: build the console when it is missing or older than its sources, then run one server process.
import { spawn } from 'node:child_process';
import { ensureWebBuilt } from './web-build.mjs';

ensureWebBuilt();
const child = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/main.ts'], { stdio: 'inherit', env: process.env });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
