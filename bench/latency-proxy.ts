// `node bench/latency-proxy.ts <uri> <delayMs>`: test/support/tcp-proxy.ts in a process of its own,
// so its CPU is not counted as Herald's. Prints {"uri": …}, the address to connect through.
import { startTcpProxy } from '../test/support/tcp-proxy.js';

const proxy = await startTcpProxy(process.argv[2]!, { delayMs: Number(process.argv[3]) });
process.stdout.write(`${JSON.stringify({ uri: proxy.uri })}\n`);
process.on('SIGTERM', () => void proxy.close().then(() => process.exit(0)));
