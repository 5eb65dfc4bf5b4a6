import { isIPv4, isIPv6 } from "node:net";

/** An egress target the check can aim at: an address literal and a port. */
export interface EgressTarget {
  /** The address as written in a CONNECT request: `1.2.3.4` or `[::1]`. */
  readonly host: string;
  readonly port: number;
}

/**
 * Parses `IPv4:port` or `[IPv6]:port`. Anything else (a name, a missing port, a port out of
 * range) is `undefined`: the check is then reported as not carried out, never aimed elsewhere.
 */
export function parseEgressTarget(target: string): EgressTarget | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(target.trim());
  if (!match) return undefined;
  const port = Number(match[3]);
  if (port < 1 || port > 65_535) return undefined;
  if (match[1] !== undefined) return isIPv6(match[1]) ? { host: `[${match[1]}]`, port } : undefined;
  return isIPv4(match[2] as string) ? { host: match[2] as string, port } : undefined;
}
