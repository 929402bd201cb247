// A loopback TCP proxy between Signet and PostgreSQL that reads the frontend protocol Signet sends
// and counts its messages by type: Query ('Q', a simple-protocol statement) and Sync ('S', which
// ends each extended-protocol statement node-postgres sends) are the statements, one round trip each.
import net from 'node:net';

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;

export class StatementCounter {
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  /** Messages seen since the last reset, by type letter. */
  counts = new Map<string, number>();
  port = 0;

  constructor(
    private readonly upstreamHost: string,
    private readonly upstreamPort: number,
  ) {
    this.server = net.createServer((client) => this.relay(client));
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
    return this.port;
  }

  reset(): void {
    this.counts = new Map();
  }

  /** Query + Sync messages since the last reset. */
  statements(): number {
    return (this.counts.get('Q') ?? 0) + (this.counts.get('S') ?? 0);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private relay(client: net.Socket): void {
    const upstream = net.connect(this.upstreamPort, this.upstreamHost);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.pipe(client);
    const read = this.reader();
    client.on('data', (chunk: Buffer) => {
      read(chunk);
      upstream.write(chunk);
    });
  }

  /** A parser of one connection's frontend stream: the untyped start-up messages first, then typed ones. */
  private reader(): (chunk: Buffer) => void {
    let started = false;
    let skip = 0;
    const header = Buffer.alloc(8);
    let have = 0;
    return (chunk) => {
      let offset = 0;
      while (offset < chunk.length) {
        if (skip > 0) {
          const n = Math.min(skip, chunk.length - offset);
          skip -= n;
          offset += n;
          continue;
        }
        // A start-up message begins with length and code (8 bytes); a typed one with type and length (5).
        const size = started ? 5 : 8;
        const n = Math.min(size - have, chunk.length - offset);
        chunk.copy(header, have, offset, offset + n);
        have += n;
        offset += n;
        if (have < size) continue;
        have = 0;
        if (started) {
          const type = String.fromCharCode(header[0]!);
          this.counts.set(type, (this.counts.get(type) ?? 0) + 1);
          skip = header.readInt32BE(1) - 4;
        } else {
          const code = header.readInt32BE(4);
          if (code !== SSL_REQUEST && code !== GSSENC_REQUEST && code !== CANCEL_REQUEST) started = true;
          skip = header.readInt32BE(0) - 8;
        }
      }
    };
  }
}
