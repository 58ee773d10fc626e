/**
 * @module roles/cli/client-env
 * What a user command needs from its host before it calls the controller: where the
 * controllers are (spur.conf and the membership file beside it), the cluster's client TLS,
 * the invoking user's names and the host name. Files are mapped on the main thread (text()
 * below), never read through node:fs, whose loading costs milliseconds of every command's
 * start-up, which is the whole budget (docs/startup.md; tests/unit/startup/import-graph.test.ts
 * keeps node:fs and node:os out of this path's static imports; node:os is loaded lazily for the
 * host name).
 * Failure policy: an unreadable spur.conf is not an error here (the controller default
 * 127.0.0.1:6817 is used, as before); unreadable passwd/group give numeric names.
 */
import { parseConf } from "../../compat/conf/slurm-conf.ts";
import { setClientTls, tlsEnabled } from "../../net/client-tls.ts";
import { findUserById, findUserByName, type UserEntry } from "../../net/users-parse.ts";
import { configureClientAuth, confPath, controllerUrlsOf, membershipFile } from "../conf-urls.ts";
import { setCredSource } from "../../net/cred-header.ts";
import { writeOutput } from "./stdio.ts";

export interface ClientEnv {
  /** Every controller, in order ($SPUR_CONTROLLER_URL, else spur.conf). */
  urls: string[];
  /**
   * Users and the host's name, looked up when asked: most calls of squeue, sinfo, scancel or
   * scontrol ask for neither, and sbatch for the host name only. /etc/passwd and /etc/group are
   * read at the first question and searched for the one entry (users-parse.ts findUserById):
   * parsing a site's whole file, as every call did, took 120 ms at 50k users.
   */
  userById: (uid: number) => UserEntry | undefined;
  userByName: (name: string) => UserEntry | undefined;
  hostname: () => string;
  /** ClusterName of spur.conf ("spur" when it names none, as the controller has it); unset without a readable spur.conf. */
  clusterName?: string;
}

const DEFAULT_URL = "http://127.0.0.1:6817";

const utf8 = new TextDecoder();

/**
 * A file's text (undefined: none). A regular file is mapped and decoded at once (Bun.mmap):
 * Bun.file().text() reads on Bun's thread pool, and starting it and handing each file over
 * cost a fresh process 2-3 ms, more on a loaded machine (issue 16). What cannot be mapped
 * (an empty file, /proc) is read the other way, and so is every file a user other than its owner
 * reads: Bun.mmap opens the file read-write, so a non-root user's spur.conf fails with EACCES (the
 * alternatives measured no better: node:fs's load, or the module loader reading `type: "text"`,
 * which walks every directory of the path). Decoded as Bun.file().text() decodes (UTF-8, BOM dropped).
 */
async function text(path: string): Promise<string | undefined> {
  const found = mapped(path);
  if (found !== UNMAPPED) return found;
  try {
    return await Bun.file(path).text();
  } catch {
    return undefined;
  }
}

/**
 * A file's text, read on this thread (a getter's answer cannot wait): mapped as text() does;
 * what cannot be mapped is read with node:fs, loaded only then: an empty file, and any file a
 * user other than its owner reads (Bun.mmap opens read-write: EACCES for /etc/passwd).
 */
function textNow(path: string): string | undefined {
  const found = mapped(path);
  if (found !== UNMAPPED) return found;
  try {
    return (require("node:fs") as typeof import("node:fs")).readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

const UNMAPPED = Symbol("unmapped");

/** The file's text by Bun.mmap; undefined: there is no such file; UNMAPPED: read it another way. */
function mapped(path: string): string | undefined | typeof UNMAPPED {
  try {
    return utf8.decode(Bun.mmap(path));
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    return code === "ENOENT" || code === "ENOTDIR" ? undefined : UNMAPPED;
  }
}

/**
 * The host's name as gethostname(2) gives it: node:os, loaded on first use (about 2 ms), where
 * /proc/sys/kernel/hostname, which cannot be mapped, would start the thread pool (5 ms measured).
 */
const hostName = (): string => (require("node:os") as typeof import("node:os")).hostname();

/** The value `get` gives, computed at the first call only. */
function once<T>(get: () => T): () => T {
  let value: { v: T } | undefined;
  return () => (value ??= { v: get() }).v;
}

/** A `%h` in SpurTlsCaFile= is this host's short name (as net/tls.ts expandHostPath). */
function expandHost(path: string, host: () => string): string {
  if (!path.includes("%h")) return path;
  const name = host();
  return path.replaceAll("%h", name.split(".")[0] ?? name);
}

/**
 * AuthType=auth/munge: a credential from the local munged per request (loaded lazily, so
 * that commands on a loopback cluster load none of it).
 */
function credSourceOf(globals: ReadonlyMap<string, string>): (() => Promise<string | undefined>) | undefined {
  if ((globals.get("authtype") ?? "").toLowerCase() !== "auth/munge") return undefined;
  const authInfo = globals.get("authinfo");
  let told = false;
  return async () => {
    const m = await import("../../net/munge/auth-munge.ts");
    const cred = await m.mungeCredential(m.parseAuthInfo(authInfo));
    if (cred.ok) return cred.value;
    // Said once; the request goes without a credential and the controller refuses it in its words.
    if (!told) await writeOutput("stderr", `error: ${cred.error.message}\n`);
    told = true;
    return undefined;
  };
}

export async function loadClientEnv(): Promise<ClientEnv> {
  const path = confPath();
  const [confText, membership] = await Promise.all([text(path), text(membershipFile(path))]);
  const passwd = once(() => textNow("/etc/passwd"));
  const group = once(() => textNow("/etc/group"));
  const userById = (uid: number) => findUserById(passwd(), group(), uid);
  const userByName = (name: string) => findUserByName(passwd(), group(), name);
  const hostname = once(hostName);
  const parsed = confText === undefined ? undefined : parseConf(confText, { globalsOnly: true });
  const conf = parsed?.ok ? parsed.value : undefined;
  if (conf === undefined) {
    setClientTls({ https: false });
  } else {
    const caFile = conf.globals.get("spurtlscafile") ?? "";
    const ca = caFile === "" ? undefined : await text(expandHost(caFile, hostname));
    setClientTls(ca === undefined ? { https: tlsEnabled(conf.globals) } : { https: tlsEnabled(conf.globals), ca });
    configureClientAuth(conf, hostname);
  }
  setCredSource(conf === undefined ? undefined : credSourceOf(conf.globals));
  const fromEnv = process.env.SPUR_CONTROLLER_URL;
  let urls: string[];
  if (fromEnv) urls = fromEnv.split(",");
  else {
    try {
      urls = conf === undefined ? [DEFAULT_URL] : controllerUrlsOf(conf, membership);
    } catch {
      urls = [DEFAULT_URL];
    }
  }
  return { urls, userById, userByName, hostname, ...(conf === undefined ? {} : { clusterName: conf.globals.get("clustername") ?? "spur" }) };
}
