/**
 * @module net/auth/spur-verifier
 * auth/spur's server side: a credential verifies when its MAC is the cluster key's, it is
 * neither expired nor from the future, its audience is this server, its host is one of
 * the cluster's (nodes, controllers, SpurLoginHosts=) and its nonce was not used before
 * (replay cache, kept for the credential's lifetime). Each refusal says why in MUNGE's
 * words; the RPC edge logs it and tells the client only "Protocol authentication error".
 */
import { type Result, err, ok } from "../../lib/result.ts";
import { openSpurCred } from "./spur-cred.ts";
import { ReplayCache } from "./replay-cache.ts";
import type { CallerIdentity, CredentialVerifier, VerifyContext } from "./types.ts";

export interface SpurVerifierOptions {
  secret: string;
  /** Hosts whose daemons may vouch for callers. */
  knownHosts: ReadonlySet<string>;
  replay?: ReplayCache;
}

export function createSpurVerifier(o: SpurVerifierOptions): CredentialVerifier {
  const replay = o.replay ?? new ReplayCache();
  return {
    scheme: "spur",
    verify(text: string, ctx: VerifyContext): Result<CallerIdentity> {
      const opened = openSpurCred(o.secret, text, ctx.nowSec);
      if (!opened.ok) return opened;
      const c = opened.value;
      if (c.audience !== ctx.audience) return err("audience", `Unauthorized credential (made for ${c.audience}, not ${ctx.audience})`);
      if (!o.knownHosts.has(c.host)) return err("host", `Unauthorized credential (unknown host "${c.host}")`);
      const seen = replay.admit(c.nonce, c.expirySec, ctx.nowSec);
      if (seen === "replayed") return err("replayed", `Replayed credential (uid ${c.uid} from ${c.host})`);
      if (seen === "full") return err("replay-cache-full", "Credential refused: the replay cache is full");
      return ok({ uid: c.uid, gid: c.gid, host: c.host });
    },
  };
}
