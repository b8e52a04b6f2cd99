// `npm start`: build the console and compile the server when missing or older than their sources, then run one
// server process from the compiled code.
import { spawn } from 'node:child_process';
import { ensureServerBuilt, SERVER_NODE_FLAGS, serverEntry } from './server-build.mjs';
import { ensureWebBuilt } from './web-build.mjs';

// a console served from elsewhere (WEB_DIST) needs no build of apps/web
if (!process.env.WEB_DIST) ensureWebBuilt();
await ensureServerBuilt();
const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, serverEntry('main')], {
  stdio: 'inherit',
  env: process.env,
});
// Ctrl-C reaches the server too (one process group); it stops once whichever signal comes first
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
