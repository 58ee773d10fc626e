/**
 * @module net/client-tls
 * The client side of Spur's TLS (net/tls.ts has the whole story): whether Spur's
 * Connect listeners speak https, and the CA a client trusts. Kept free of node:fs
 * and node:os so that a CLI, which reads spur.conf and the CA file itself with
 * Bun.file (roles/cli/client-env.ts), does not load them: each costs milliseconds
 * of start-up (docs/startup.md). Daemons set it through tls.ts configureClientTls.
 */

type Globals = ReadonlyMap<string, string>;

export interface ClientTls {
  https: boolean;
  ca?: string;
}

let client: ClientTls | undefined;
let loader: (() => ClientTls | undefined) | undefined;

/** Whether the cluster's Connect listeners speak TLS (SpurTlsCertFile= set). Pure. */
export function tlsEnabled(g: Globals): boolean {
  return (g.get("spurtlscertfile") ?? "") !== "";
}

/** Set the client side directly (a CLI that read spur.conf and the CA file itself). */
export function setClientTls(tls: ClientTls): void {
  client = tls;
}

/** How to find the client side when nothing set it yet (installed by tls.ts for roles/conf-file). */
export function setClientTlsFallback(load: () => ClientTls | undefined): void {
  loader = load;
}

function current(): ClientTls {
  client ??= loader?.() ?? { https: false };
  return client;
}

/** The URL scheme of Spur's Connect listeners. */
export function rpcScheme(): "https" | "http" {
  return current().https ? "https" : "http";
}

/** A Spur daemon's URL (agents, whose addresses come from the controller). */
export function rpcUrl(host: string, port: number): string {
  return `${rpcScheme()}://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/** Extra fetch() options for `url` (Bun's `tls.ca`): the cluster's CA for https URLs. */
export function fetchTls(url: string): { tls?: { ca: string } } {
  const ca = url.startsWith("https:") ? current().ca : undefined;
  return ca === undefined ? {} : { tls: { ca } };
}

/** Extra createConnectTransport() options (node:https `ca`) for `url`. */
export function connectTls(url: string): { nodeOptions?: { ca: string } } {
  const ca = url.startsWith("https:") ? current().ca : undefined;
  return ca === undefined ? {} : { nodeOptions: { ca } };
}
