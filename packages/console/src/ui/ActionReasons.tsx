// Why some actions on a screen are disabled, said once under them (a disabled button cannot take
// focus, so its title alone would be out of reach of keyboard and screen-reader users).
import type { Capability } from '../session/capabilities';

export function ActionReasons({ id, capabilities }: { id: string; capabilities: Capability[] }) {
  const reasons = [...new Set(capabilities.filter((capability) => !capability.allowed).map((capability) => capability.reason ?? 'Not allowed.'))];
  if (reasons.length === 0) return null;
  return (
    <div id={id} class="action-reasons">
      <span class="badge badge-off">Read-only</span>
      {reasons.map((reason) => (
        <span key={reason}> {reason}</span>
      ))}
    </div>
  );
}
