/**
 * @module devices/xml-lite
 * A small, strict XML reader for tool output such as `nvidia-smi -q -x`: elements,
 * attributes, text, comments, CDATA and the five predefined entities. No DTD
 * processing (the DOCTYPE is skipped, never fetched), bounded depth and size.
 */
import { err, ok, type Result } from "../lib/result.ts";

export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  /** Concatenated character data directly inside this element, entities decoded, untrimmed. */
  text: string;
}

const DEPTH_MAX = 64;
const ELEMENTS_MAX = 200_000;
const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decodeEntities(raw: string): string {
  return raw.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name.startsWith("#x") || name.startsWith("#X")) return String.fromCodePoint(Number.parseInt(name.slice(2), 16));
    if (name.startsWith("#")) return String.fromCodePoint(Number(name.slice(1)));
    return ENTITIES[name] ?? whole;
  });
}

function parseAttributes(raw: string): Record<string, string> | undefined {
  const attributes: Record<string, string> = {};
  const re = /([A-Za-z_][\w.:-]*)\s*=\s*("([^"]*)"|'([^']*)')/g;
  let rest = raw;
  for (const m of raw.matchAll(re)) {
    attributes[m[1]!] = decodeEntities(m[3] ?? m[4] ?? "");
    rest = rest.replace(m[0], "");
  }
  return rest.trim() === "" ? attributes : undefined;
}

/** Index just past the markup that starts at `at` ("<?", "<!--", "<![CDATA[", "<!DOCTYPE"), or -1. */
function skipSpecial(text: string, at: number): number {
  if (text.startsWith("<?", at)) return endAfter(text, at, "?>");
  if (text.startsWith("<!--", at)) return endAfter(text, at, "-->");
  // DOCTYPE: skip to the closing ">", stepping over an internal subset in brackets.
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    if (text[i] === "[") depth++;
    else if (text[i] === "]") depth--;
    else if (text[i] === ">" && depth <= 0) return i + 1;
  }
  return -1;
}

function endAfter(text: string, at: number, close: string): number {
  const end = text.indexOf(close, at);
  return end < 0 ? -1 : end + close.length;
}

/** Parses a document and returns its root element. */
export function parseXml(text: string): Result<XmlElement> {
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let count = 0;
  let i = 0;
  while (i < text.length) {
    const lt = text.indexOf("<", i);
    const chunk = text.slice(i, lt < 0 ? text.length : lt);
    if (chunk.trim() !== "") {
      const top = stack[stack.length - 1];
      if (top === undefined) return err("BadXml", "text outside the root element");
      top.text += decodeEntities(chunk);
    } else if (stack.length > 0) stack[stack.length - 1]!.text += chunk;
    if (lt < 0) break;
    if (text.startsWith("<![CDATA[", lt)) {
      const end = text.indexOf("]]>", lt);
      const top = stack[stack.length - 1];
      if (end < 0 || top === undefined) return err("BadXml", "unterminated or misplaced CDATA");
      top.text += text.slice(lt + 9, end);
      i = end + 3;
      continue;
    }
    if (text.startsWith("<?", lt) || text.startsWith("<!", lt)) {
      i = skipSpecial(text, lt);
      if (i < 0) return err("BadXml", "unterminated declaration or comment");
      continue;
    }
    const gt = text.indexOf(">", lt);
    if (gt < 0) return err("BadXml", "unterminated tag");
    const body = text.slice(lt + 1, gt);
    i = gt + 1;
    if (body.startsWith("/")) {
      const open = stack.pop();
      if (open === undefined || open.name !== body.slice(1).trim()) return err("BadXml", `unexpected </${body.slice(1).trim()}>`);
      if (stack.length === 0) root = open;
      continue;
    }
    const selfClosing = body.endsWith("/");
    const inner = selfClosing ? body.slice(0, -1) : body;
    const m = /^([A-Za-z_][\w.:-]*)([\s\S]*)$/.exec(inner);
    if (m === null) return err("BadXml", `bad tag <${body}>`);
    const attributes = parseAttributes(m[2]!);
    if (attributes === undefined) return err("BadXml", `bad attributes in <${m[1]}>`);
    if (++count > ELEMENTS_MAX || stack.length >= DEPTH_MAX) return err("BadXml", "document too large or too deep");
    const el: XmlElement = { name: m[1]!, attributes, children: [], text: "" };
    const parent = stack[stack.length - 1];
    if (parent !== undefined) parent.children.push(el);
    else if (root !== undefined) return err("BadXml", "more than one root element");
    if (selfClosing) {
      if (parent === undefined) root = el;
    } else stack.push(el);
  }
  if (stack.length > 0) return err("BadXml", `unclosed <${stack[stack.length - 1]!.name}>`);
  if (root === undefined) return err("BadXml", "no root element");
  return ok(root);
}

export function xmlChild(el: XmlElement | undefined, name: string): XmlElement | undefined {
  return el?.children.find((c) => c.name === name);
}

export function xmlChildren(el: XmlElement | undefined, name: string): XmlElement[] {
  return el === undefined ? [] : el.children.filter((c) => c.name === name);
}

/** Trimmed text at a slash path below `el` ("fb_memory_usage/total"); undefined when missing. */
export function xmlText(el: XmlElement | undefined, path: string): string | undefined {
  let node = el;
  for (const part of path.split("/")) node = xmlChild(node, part);
  return node?.text.trim();
}
