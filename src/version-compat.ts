/**
 * @module version-compat
 * Which agents a controller accepts during a rolling upgrade, and what it tells the
 * operator when it refuses one. Policy (docs/upgrade.md): controller first, then agents;
 * a controller accepts agents speaking its own protocol version only, so a protocol bump
 * means a drained, whole-cluster upgrade, said plainly here. Pure.
 */

/** undefined when the agent may register; otherwise the refusal, naming the way out. */
export function agentProtocolRefusal(agent: string, controller: string, controllerVersion: string): string | undefined {
  if (agent === controller) return undefined;
  const head = `Incompatible protocol version: spurd speaks ${agent === "" ? "(none)" : agent}, this spurctld ${controllerVersion} speaks ${controller}`;
  const agentNum = Number(agent);
  const ctlNum = Number(controller);
  if (agent !== "" && Number.isFinite(agentNum) && Number.isFinite(ctlNum) && agentNum > ctlNum) {
    return `${head}: upgrade spurctld first, then the agents (docs/upgrade.md)`;
  }
  return `${head}: upgrade this node's spurd to the controller's release (docs/upgrade.md)`;
}
