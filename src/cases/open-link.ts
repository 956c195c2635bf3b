/**
 * A link the person opens themselves (an MCP URL-mode elicitation): the ask's context carries
 * `open_link: { url }`, and its open card gets a link button showing the full URL with its host
 * stated apart ("Opens example.com"). The host is worked out here from the URL (never taken from
 * the context, so a label cannot name another site), in its ASCII form (an internationalised host
 * shows as `xn--…`, so a look-alike cannot pass); only http and https, never with credentials. The
 * relay never opens, fetches or previews the URL: the button is the person's to press.
 */
import type { CardOpenLink } from '../render/card.ts';

/** The open-link button of a case's context, or undefined. */
export function openLinkOf(context: unknown): CardOpenLink | undefined {
  const raw = (context as { open_link?: { url?: unknown } } | null | undefined)?.open_link?.url;
  if (typeof raw !== 'string') return undefined;
  const url = URL.parse(raw);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) return undefined;
  if (url.username || url.password || !url.host) return undefined;
  return { label: `Opens ${url.host}`, url: url.href, host: url.host };
}
