/**
 * @module ctld/peer-host
 * The name a client's address resolves to, as slurmctld records AllocNode: the
 * submitting connection's IP address looked up through the system resolver
 * (getnameinfo: /etc/hosts, then DNS), so 127.0.0.1 is "localhost". Answers are
 * cached per address; an address that does not resolve (or takes over a second)
 * is shown as itself. Resolved once by the serving controller and carried in the
 * submit command, so replicas never resolve.
 */
import { lookupService } from "node:dns/promises";

const cache = new Map<string, string>();
const LOOKUP_TIMEOUT_MS = 1000;

/** "" for no address; the IPv4 form of an IPv4-mapped IPv6 address. */
export async function hostNameOf(address: string): Promise<string> {
  const addr = address.startsWith("::ffff:") ? address.slice(7) : address;
  if (addr === "") return "";
  const known = cache.get(addr);
  if (known !== undefined) return known;
  const timeout = new Promise<string>((resolve) => setTimeout(() => resolve(addr), LOOKUP_TIMEOUT_MS).unref?.());
  const name = await Promise.race([lookupService(addr, 0).then((r) => r.hostname || addr, () => addr), timeout]);
  if (cache.size > 1024) cache.clear();
  cache.set(addr, name);
  return name;
}
