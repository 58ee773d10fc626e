/**
 * @module lib/system-clock
 * The real Clock: Date.now, performance.now and the runtime's timers. The one shell file of
 * lib/ (listed in tests/architecture/rules.ts SHELL_FILES_IN_PURE): it sits next to the port
 * it implements so every shell can take it as its default; pure code never imports it.
 */
import type { Clock, TimerHandle, TimerOptions } from "./clock.ts";

type Native = ReturnType<typeof setTimeout> | ReturnType<typeof setImmediate>;
interface SystemTimer extends TimerHandle {
  kind: "timeout" | "interval" | "immediate";
  native: Native;
}

let nextId = 1;

function wrap(kind: SystemTimer["kind"], native: Native, options?: TimerOptions): SystemTimer {
  if (options?.unref === true && kind !== "immediate") (native as { unref?: () => void }).unref?.();
  return { id: nextId++, kind, native };
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonicMs: () => performance.now(),
  setTimeout: (fn, delayMs, options) => wrap("timeout", setTimeout(fn, delayMs), options),
  setInterval: (fn, periodMs, options) => wrap("interval", setInterval(fn, periodMs), options),
  setImmediate: (fn) => wrap("immediate", setImmediate(fn)),
  clear(timer) {
    if (timer === undefined) return;
    const t = timer as SystemTimer;
    if (t.kind === "immediate") clearImmediate(t.native as ReturnType<typeof setImmediate>);
    else if (t.kind === "interval") clearInterval(t.native as ReturnType<typeof setInterval>);
    else clearTimeout(t.native as ReturnType<typeof setTimeout>);
  },
};
