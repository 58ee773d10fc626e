/**
 * @module rest/keyring
 * The JWT key shared by spurctld (which issues tokens for `scontrol token` and
 * verifies those spurrestd forwards) and spurrestd: a file in the state
 * directory (Slurm: AuthAltParameters=jwt_key=PATH). Rotation without restart:
 * the file's mtime/size is checked at most once per `recheckMs`; a changed key
 * becomes current and the previous one is still accepted for `graceSec`
 * (default 300 s), so tokens issued just before a rotation keep working briefly.
 */
import { chmodSync, existsSync, linkSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { importKey, signToken, verifyToken, type JwtClaims, type VerifyResult } from "./jwt.ts";

export const JWT_KEY_FILE = "jwt_hs256.key";
export const KEY_GRACE_SEC_DEFAULT = 300;

export interface Keyring {
  sign(claims: JwtClaims): Promise<string>;
  verify(token: string, nowSec: number): Promise<VerifyResult>;
  path: string;
}

/**
 * Create the key file (32 random bytes, mode 0600) when it does not exist. Several
 * controllers may start at once on one state directory (`spur up --controllers 3`), so the
 * key is written whole under a private temporary name and then link()ed to `path`: link
 * is atomic and fails with EEXIST when another process won, in which case its key is the
 * one (a reader never sees a half-written file, and nobody dies of EEXIST).
 */
export function ensureKeyFile(path: string): void {
  if (existsSync(path)) return;
  const temp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  writeFileSync(temp, randomBytes(32), { mode: 0o600, flag: "wx" });
  chmodSync(temp, 0o600);
  try {
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  } finally {
    rmSync(temp, { force: true });
  }
}

/** `AuthAltParameters=jwt_key=/path,...` from spur.conf globals, else STATE_DIR/jwt_hs256.key. */
export function keyPathFromConf(globals: ReadonlyMap<string, string>, stateDir: string): string {
  const alt = globals.get("authaltparameters") ?? "";
  const m = /(?:^|,)jwt_key=([^,]+)/.exec(alt);
  return m?.[1] ?? `${stateDir}/${JWT_KEY_FILE}`;
}

export function openKeyring(path: string, opts: { graceSec?: number; recheckMs?: number; nowMs?: () => number } = {}): Keyring {
  const graceSec = opts.graceSec ?? KEY_GRACE_SEC_DEFAULT;
  const recheckMs = opts.recheckMs ?? 1000;
  const nowMs = opts.nowMs ?? Date.now;
  let stamp = "";
  let current: CryptoKey | undefined;
  let previous: { key: CryptoKey; untilMs: number } | undefined;
  let checkedMs = -Infinity;

  async function refresh(): Promise<CryptoKey> {
    const t = nowMs();
    if (current !== undefined && t - checkedMs < recheckMs) return current;
    checkedMs = t;
    const st = statSync(path);
    const next = `${st.mtimeMs}:${st.size}:${st.ino}`;
    if (current !== undefined && next === stamp) return current;
    const key = await importKey(new Uint8Array(readFileSync(path)));
    if (current !== undefined && graceSec > 0) previous = { key: current, untilMs: t + graceSec * 1000 };
    current = key;
    stamp = next;
    return key;
  }

  return {
    path,
    async sign(claims) {
      return signToken(await refresh(), claims);
    },
    async verify(token, nowSec) {
      const key = await refresh();
      const keys = previous !== undefined && previous.untilMs > nowMs() ? [key, previous.key] : [key];
      return verifyToken(keys, token, nowSec);
    },
  };
}
