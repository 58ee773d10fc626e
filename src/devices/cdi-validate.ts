/**
 * @module devices/cdi-validate
 * Checks a value against the Container Device Interface spec's rules (required
 * fields, kind and device-name syntax, known fields only, valid hooks and device
 * types) and computes the minimum cdiVersion a spec's features need.
 */

/** Released spec versions a consumer accepts, oldest first (0.3.0 is the earliest still loaded). */
export const CDI_VERSIONS = ["0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "1.0.0", "1.1.0"] as const;
export const CDI_VERSION_LATEST = "1.1.0";

const HOOK_NAMES = new Set(["prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop"]);
const SPEC_KEYS = new Set(["cdiVersion", "kind", "annotations", "devices", "containerEdits"]);
const DEVICE_KEYS = new Set(["name", "annotations", "containerEdits"]);
const EDIT_KEYS = new Set(["env", "deviceNodes", "mounts", "hooks", "intelRdt", "additionalGids", "netDevices"]);
const NODE_KEYS = new Set(["path", "hostPath", "type", "major", "minor", "fileMode", "permissions", "uid", "gid"]);
const MOUNT_KEYS = new Set(["hostPath", "containerPath", "options", "type"]);
const HOOK_KEYS = new Set(["hookName", "path", "args", "env", "timeout"]);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const isAlnum = (c: string) => /^[A-Za-z0-9]$/.test(c);

/** Vendor or class: a letter first, alphanumerics last, [A-Za-z0-9_.-] between. */
export function validVendorOrClass(name: string): boolean {
  return /^[A-Za-z]([A-Za-z0-9_.-]*[A-Za-z0-9])?$/.test(name);
}

/** Device name: alphanumeric first and last, [A-Za-z0-9_.:-] between (a leading digit needs 0.5.0). */
export function validDeviceName(name: string): boolean {
  return /^[A-Za-z0-9]([A-Za-z0-9_.:-]*[A-Za-z0-9])?$/.test(name);
}

/** "vendor.com/class" → [vendor, class], or undefined when it is not a valid kind. */
export function parseCdiKind(kind: string): [string, string] | undefined {
  const slash = kind.indexOf("/");
  if (slash <= 0) return undefined;
  const vendor = kind.slice(0, slash);
  const cls = kind.slice(slash + 1);
  return validVendorOrClass(vendor) && validVendorOrClass(cls) ? [vendor, cls] : undefined;
}

function versionRank(v: string): number {
  return (CDI_VERSIONS as readonly string[]).indexOf(v);
}

function allEdits(spec: Obj): Obj[] {
  const edits: Obj[] = isObj(spec["containerEdits"]) ? [spec["containerEdits"]] : [];
  for (const d of Array.isArray(spec["devices"]) ? spec["devices"] : []) if (isObj(d) && isObj(d["containerEdits"])) edits.push(d["containerEdits"]);
  return edits;
}

const nonEmpty = (v: unknown) => (Array.isArray(v) ? v.length > 0 : isObj(v) ? Object.keys(v).length > 0 : v !== undefined);

/** The oldest spec version that has every feature the spec uses (the Go library's rules). */
export function minimumCdiVersion(spec: Obj): string {
  const edits = allEdits(spec);
  const devices = (Array.isArray(spec["devices"]) ? spec["devices"] : []).filter(isObj);
  const nodes = edits.flatMap((e) => (Array.isArray(e["deviceNodes"]) ? e["deviceNodes"] : [])).filter(isObj);
  const mounts = edits.flatMap((e) => (Array.isArray(e["mounts"]) ? e["mounts"] : [])).filter(isObj);
  const cls = parseCdiKind(String(spec["kind"] ?? ""))?.[1] ?? "";
  if (edits.some((e) => nonEmpty(e["netDevices"]))) return "1.1.0";
  if (edits.some((e) => e["intelRdt"] !== undefined || nonEmpty(e["additionalGids"]))) return "0.7.0";
  if (nonEmpty(spec["annotations"]) || devices.some((d) => nonEmpty(d["annotations"])) || cls.includes(".")) return "0.6.0";
  if (devices.some((d) => /^[0-9]/.test(String(d["name"] ?? ""))) || nodes.some((n) => typeof n["hostPath"] === "string" && n["hostPath"] !== "")) return "0.5.0";
  if (mounts.some((m) => typeof m["type"] === "string" && m["type"] !== "")) return "0.4.0";
  return "0.3.0";
}

function unknownKeys(obj: Obj, known: Set<string>, where: string, errors: string[]): void {
  for (const k of Object.keys(obj)) if (!known.has(k)) errors.push(`${where}: unknown field "${k}"`);
}

function strings(v: unknown): boolean {
  return Array.isArray(v) && v.every((s) => typeof s === "string");
}

function checkNode(n: unknown, where: string, errors: string[]): void {
  if (!isObj(n)) return void errors.push(`${where}: not an object`);
  unknownKeys(n, NODE_KEYS, where, errors);
  if (typeof n["path"] !== "string" || n["path"] === "") errors.push(`${where}: path is required`);
  if (n["type"] !== undefined && !["b", "c", "u", "p"].includes(String(n["type"]))) errors.push(`${where}: invalid type "${String(n["type"])}"`);
  if (n["permissions"] !== undefined && !/^[rwm]+$/.test(String(n["permissions"]))) errors.push(`${where}: invalid permissions "${String(n["permissions"])}"`);
  for (const k of ["major", "minor", "fileMode", "uid", "gid"]) {
    if (n[k] !== undefined && !Number.isInteger(n[k])) errors.push(`${where}: ${k} must be an integer`);
  }
}

function checkEdits(e: unknown, where: string, errors: string[]): void {
  if (!isObj(e)) return void errors.push(`${where}: not an object`);
  unknownKeys(e, EDIT_KEYS, where, errors);
  if (e["env"] !== undefined) {
    if (!strings(e["env"])) errors.push(`${where}.env: must be an array of strings`);
    else for (const v of e["env"] as string[]) if (!/^[^=]+=/.test(v)) errors.push(`${where}.env: invalid environment variable "${v}"`);
  }
  const list = (key: string) => (e[key] === undefined ? [] : Array.isArray(e[key]) ? e[key] : (errors.push(`${where}.${key}: must be an array`), []));
  list("deviceNodes").forEach((n, i) => checkNode(n, `${where}.deviceNodes[${i}]`, errors));
  list("mounts").forEach((m, i) => {
    const at = `${where}.mounts[${i}]`;
    if (!isObj(m)) return void errors.push(`${at}: not an object`);
    unknownKeys(m, MOUNT_KEYS, at, errors);
    for (const k of ["hostPath", "containerPath"]) if (typeof m[k] !== "string" || m[k] === "") errors.push(`${at}: ${k} is required`);
    if (m["options"] !== undefined && !strings(m["options"])) errors.push(`${at}: options must be an array of strings`);
  });
  list("hooks").forEach((h, i) => {
    const at = `${where}.hooks[${i}]`;
    if (!isObj(h)) return void errors.push(`${at}: not an object`);
    unknownKeys(h, HOOK_KEYS, at, errors);
    if (!HOOK_NAMES.has(String(h["hookName"]))) errors.push(`${at}: invalid hookName "${String(h["hookName"])}"`);
    if (typeof h["path"] !== "string" || !h["path"].startsWith("/")) errors.push(`${at}: path must be absolute`);
  });
}

function checkDevices(devices: unknown, errors: string[]): void {
  if (!Array.isArray(devices) || devices.length === 0) return void errors.push("devices: at least one device is required");
  const seen = new Set<string>();
  devices.forEach((d, i) => {
    const at = `devices[${i}]`;
    if (!isObj(d)) return void errors.push(`${at}: not an object`);
    unknownKeys(d, DEVICE_KEYS, at, errors);
    const name = d["name"];
    if (typeof name !== "string" || !validDeviceName(name)) errors.push(`${at}: invalid device name ${JSON.stringify(name)}`);
    else if (seen.has(name)) errors.push(`${at}: duplicate device name "${name}"`);
    else seen.add(name);
    if (d["containerEdits"] === undefined) errors.push(`${at}: containerEdits is required`);
    else checkEdits(d["containerEdits"], `${at}.containerEdits`, errors);
  });
}

/** Every way `value` breaks the CDI spec; an empty list means it is a valid spec. */
export function validateCdiSpec(value: unknown): string[] {
  const errors: string[] = [];
  if (!isObj(value)) return ["spec: not an object"];
  unknownKeys(value, SPEC_KEYS, "spec", errors);
  const version = value["cdiVersion"];
  if (typeof version !== "string") errors.push("cdiVersion: required");
  else if (versionRank(version) < 0) errors.push(`cdiVersion: invalid version "${version}"`);
  if (typeof value["kind"] !== "string" || parseCdiKind(value["kind"]) === undefined) errors.push(`kind: invalid kind ${JSON.stringify(value["kind"])}, want vendor.com/class`);
  checkDevices(value["devices"], errors);
  if (value["containerEdits"] !== undefined) checkEdits(value["containerEdits"], "containerEdits", errors);
  if (typeof version === "string" && versionRank(version) >= 0) {
    const needed = minimumCdiVersion(value);
    if (versionRank(needed) > versionRank(version)) errors.push(`cdiVersion: the spec version must be at least v${needed}`);
  }
  return errors;
}
