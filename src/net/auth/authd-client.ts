/**
 * @module net/auth/authd-client
 * The CLI's side of auth/spur: one connection to this host's vouching daemon
 * (SpurAuthSocket=) per credential, one line out (the audience), one line back.
 * Bun.connect only (no node:net): every user command may load this (docs/startup.md).
 * Failure policy: no answer within REQUEST_TIMEOUT_MS, a closed socket or a `!why`
 * answer is an error naming the socket, so the user learns which daemon to start.
 */
import type { CredentialSource } from "./types.ts";

const REQUEST_TIMEOUT_MS = 3000;

/** A credential for `audience` from the daemon at `path`: the full header value (`spur:...`). */
export function requestCredential(path: string, audience: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = "";
    let settled = false;
    const finish = (e: Error | undefined, value = ""): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (e === undefined) resolve(value);
      else reject(e);
    };
    const fail = (why: string) => finish(new Error(`auth/spur: no credential from ${path}: ${why}`));
    const timer = setTimeout(() => fail("no answer (is spurd or `spur authd` running on this host?)"), REQUEST_TIMEOUT_MS);
    Bun.connect({
      unix: path,
      socket: {
        open(s) {
          s.write(`${audience}\n`);
        },
        data(s, chunk) {
          buf += Buffer.from(chunk).toString("utf8");
          const nl = buf.indexOf("\n");
          if (nl < 0) return;
          const line = buf.slice(0, nl);
          // settle before end(): Bun runs close() inside end()
          if (line.startsWith("!")) fail(line.slice(1));
          else finish(undefined, line);
          s.end();
        },
        close() {
          fail("the daemon closed the connection");
        },
        error(_s, e) {
          fail(e.message);
        },
      },
    }).catch((e: Error) => fail(`${(e as { code?: string }).code ?? e.message} (is spurd or \`spur authd\` running on this host?)`));
  });
}

/** auth/spur's CredentialSource: the daemon at `path`. */
export function authdSource(path: string): CredentialSource {
  return { credential: (audience) => requestCredential(path, audience) };
}
