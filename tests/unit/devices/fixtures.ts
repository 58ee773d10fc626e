/**
 * Paths and loaders for the GPU fixture trees under tests/fixtures/gpu (see its README.md).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { NvidiaSmiTexts } from "../../../src/devices/run-nvidia-smi.ts";

export const FIXTURES = fileURLToPath(new URL("../../fixtures/gpu/", import.meta.url));

export const fixtureRoot = (layout: string): string => `${FIXTURES}${layout}`;

export const fixtureText = (layout: string, file: string): string => readFileSync(`${FIXTURES}${layout}/${file}`, "utf8");

/** The three nvidia-smi outputs recorded for an NVIDIA layout. */
export function nvidiaTexts(layout: string): NvidiaSmiTexts {
  return {
    query: fixtureText(layout, "nvidia-smi-q.xml"),
    topo: fixtureText(layout, "nvidia-smi-topo.txt"),
    list: fixtureText(layout, "nvidia-smi-L.txt"),
  };
}

export const MI300X = "mi300x-8-xgmi";
export const MI250X = "mi250x-4pkg-xgmi";
export const H100 = "h100-sxm-8-nvswitch";
export const H100_MIG = "h100-sxm-8-mig";
export const L40S = "l40s-4-pcie-2numa";
