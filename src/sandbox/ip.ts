/** IP addresses as numbers, for the export's `cidr` filter and for checking its ranges. */

/** An IPv4 or IPv6 address as its bit width and value; undefined when the text is not one. */
export function parseIp(text: string): { bits: number; value: bigint } | undefined {
  if (text.includes(':')) {
    const [head = '', tail, extra] = text.split('::');
    if (extra !== undefined) return undefined;
    const headParts = head === '' ? [] : head.split(':');
    const tailParts = tail === undefined || tail === '' ? [] : tail.split(':');
    const missing = 8 - headParts.length - tailParts.length;
    if (tail === undefined ? missing !== 0 : missing < 1) return undefined;
    const groups = [...headParts, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...tailParts];
    let value = 0n;
    for (const group of groups) {
      if (!/^[0-9a-f]{1,4}$/i.test(group)) return undefined;
      value = (value << 16n) | BigInt(Number.parseInt(group, 16));
    }
    return { bits: 128, value };
  }
  const octets = text.split('.');
  if (octets.length !== 4) return undefined;
  let value = 0n;
  for (const octet of octets) {
    if (!/^\d{1,3}$/.test(octet) || Number(octet) > 255) return undefined;
    value = (value << 8n) | BigInt(octet);
  }
  return { bits: 32, value };
}

/** An IPv4 or IPv6 address with an optional prefix length that fits it ("cidr (ip only, IPv4/IPv6)"). */
export function isCidrRange(text: string): boolean {
  const [network = '', prefix, extra] = text.split('/');
  const address = parseIp(network);
  if (!address || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= address.bits;
}
