/**
 * @module tests/e2e/cdp
 * A small Chrome DevTools Protocol client over WebSocket, enough to drive the system's
 * `chromium` headless from a test or a bench: start it, talk to its one page (navigate,
 * evaluate, wait for a condition, screenshot, watch every request the page makes), stop it.
 * No puppeteer/playwright (they download their own browser; CI and the clusters are air-gapped).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The browser binary: $CHROMIUM, else Debian's chromium, else undefined. */
export function chromiumPath(): string | undefined {
  for (const p of [process.env.CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"]) if (p && existsSync(p)) return p;
  const found = spawnSync("sh", ["-c", "command -v chromium || command -v chromium-browser"], { encoding: "utf8" }).stdout.trim();
  return found === "" ? undefined : found;
}

type Listener = (params: Record<string, unknown>) => void;

export interface Page {
  send<T = Record<string, unknown>>(method: string, params?: Record<string, unknown>): Promise<T>;
  on(event: string, fn: Listener): void;
  /** Value of a JavaScript expression in the page (promises awaited); throws the page's exception. */
  evaluate<T>(expression: string): Promise<T>;
  /** Navigates and resolves once the load event has fired. */
  navigate(url: string): Promise<void>;
  /** Polls `expression` until it is truthy; resolves with its value. */
  waitFor<T>(what: string, expression: string, timeoutMs?: number): Promise<T>;
  screenshot(path: string): Promise<void>;
  /** Every URL the page requested since it was opened (Network.requestWillBeSent). */
  requests: string[];
}

export interface Browser {
  page: Page;
  version: string;
  close(): Promise<void>;
}

const CALL_TIMEOUT_MS = 30_000;

function waitForDevtoolsUrl(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error(`chromium gave no DevTools address within ${timeoutMs} ms: ${text.slice(-500)}`)), timeoutMs);
    child.stderr?.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const m = /DevTools listening on (ws:\/\/\S+)/.exec(text);
      if (m?.[1] !== undefined) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once("exit", (code) => reject(new Error(`chromium exited (${code}) before listening: ${text.slice(-500)}`)));
  });
}

async function connect(wsUrl: string): Promise<Page> {
  const ws = new WebSocket(wsUrl);
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve();
    ws.onerror = () => reject(new Error(`cannot open ${wsUrl}`));
  });
  let nextId = 1;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  const listeners = new Map<string, Listener[]>();
  ws.onmessage = (ev) => {
    const msg = JSON.parse(String(ev.data)) as { id?: number; result?: unknown; error?: { message: string }; method?: string; params?: Record<string, unknown> };
    if (msg.id !== undefined) {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error !== undefined) p?.reject(new Error(msg.error.message));
      else p?.resolve(msg.result);
    } else if (msg.method !== undefined) for (const fn of listeners.get(msg.method) ?? []) fn(msg.params ?? {});
  };
  const page: Page = {
    requests: [],
    send<T>(method: string, params: Record<string, unknown> = {}) {
      const id = nextId++;
      ws.send(JSON.stringify({ id, method, params }));
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${method}: no answer in ${CALL_TIMEOUT_MS} ms`)), CALL_TIMEOUT_MS);
        pending.set(id, { resolve: (v) => (clearTimeout(timer), resolve(v as T)), reject: (e) => (clearTimeout(timer), reject(e)) });
      });
    },
    on(event, fn) {
      listeners.set(event, [...(listeners.get(event) ?? []), fn]);
    },
    async evaluate<T>(expression: string) {
      const r = await page.send<{ result: { value?: T }; exceptionDetails?: { text: string; exception?: { description?: string } } }>("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true });
      if (r.exceptionDetails !== undefined) throw new Error(`page: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
      return r.result.value as T;
    },
    async navigate(url) {
      const loaded = new Promise<void>((resolve) => page.on("Page.loadEventFired", () => resolve()));
      const r = await page.send<{ errorText?: string }>("Page.navigate", { url });
      if (r.errorText) throw new Error(`navigate ${url}: ${r.errorText}`);
      await loaded;
    },
    async waitFor<T>(what: string, expression: string, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      let last: unknown;
      while (Date.now() < deadline) {
        try {
          const v = await page.evaluate<T>(expression);
          if (v) return v;
        } catch (e) {
          last = e;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    },
    async screenshot(path) {
      const r = await page.send<{ data: string }>("Page.captureScreenshot", { format: "png" });
      writeFileSync(path, Buffer.from(r.data, "base64"));
    },
  };
  page.on("Network.requestWillBeSent", (p) => page.requests.push(String((p.request as { url: string }).url)));
  await page.send("Page.enable");
  await page.send("Network.enable");
  await page.send("Runtime.enable");
  return page;
}

/** Starts headless chromium with a fresh profile and attaches to its page. */
export async function launch(opts: { width?: number; height?: number } = {}): Promise<Browser> {
  const bin = chromiumPath();
  if (bin === undefined) throw new Error("chromium not found (apt-get install chromium)");
  const profile = mkdtempSync(join(tmpdir(), "spur-cdp-"));
  const child = spawn(bin, [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--remote-debugging-port=0", `--user-data-dir=${profile}`,
    "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--disable-default-apps", "--mute-audio", `--window-size=${opts.width ?? 1280},${opts.height ?? 900}`, "about:blank",
  ], { stdio: ["ignore", "ignore", "pipe"] });
  try {
    const browserUrl = await waitForDevtoolsUrl(child, 30_000);
    const http = browserUrl.replace(/^ws:\/\/([^/]+)\/.*$/, "http://$1");
    const targets = (await (await fetch(`${http}/json/list`)).json()) as { type: string; webSocketDebuggerUrl: string }[];
    const target = targets.find((t) => t.type === "page");
    if (target === undefined) throw new Error("chromium has no page target");
    const version = ((await (await fetch(`${http}/json/version`)).json()) as { Browser: string }).Browser;
    const page = await connect(target.webSocketDebuggerUrl);
    await page.send("Emulation.setDeviceMetricsOverride", { width: opts.width ?? 1280, height: opts.height ?? 900, deviceScaleFactor: 1, mobile: false });
    return {
      page, version,
      async close() {
        const exited = new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : child.once("exit", () => resolve())));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (e) {
    child.kill("SIGKILL");
    rmSync(profile, { recursive: true, force: true });
    throw e;
  }
}
