/**
 * The house rules of DESIGN.md, checked by `npm run check` (dependency-cruiser reads every import
 * form: static, type-only, dynamic `import()`, `require` and `createRequire`'d require).
 */
// Each platform's SDK packages, from its line in platforms/registry.ts (read through tsx, which
// runs the TypeScript; the lines' load() is never called here).
const { PLATFORMS } = require('tsx/cjs/api').require('./platforms/registry.ts', __filename);
const literally = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const SDK = Object.fromEntries(
  PLATFORMS.filter((p) => p.sdk.length).map((p) => [p.name, p.sdk.map(literally).join('|')]),
);
const ANY_SDK = Object.values(SDK).join('|');
// What a platform may use of the core: the adapter contract and its small helpers, nothing else.
const CORE_SURFACE = [
  '^src/adapter\\.ts$',
  // What a platform's platform.ts hands the registry (its definition, its routes' documentation).
  '^src/adapter-definition\\.ts$',
  // The adapter kit: answer a tap within the platform's window, de-duplication, truncation, strings.
  '^src/adapter-kit\\.ts$',
  // `/pending`'s "Re-post" button: its contract and its state in the shared key-value store.
  '^src/adapter-repost\\.ts$',
  // Bulk decisions (preview, single-use confirm, submit through onTap): web and every chat share it.
  '^src/adapter-bulk\\.ts$',
  '^src/render/card\\.ts$',
  // What an open ask's card must say beside a platform's widgets (statement, draft, args, values).
  '^src/render/ask-facts\\.ts$',
  '^src/errors\\.ts$',
  '^src/log\\.ts$',
  '^src/config/env\\.ts$',
  // The one send pace the adapters share (per-chat, per-group and global windows, 429 holds).
  '^src/pace\\.ts$',
  // The ask content model (pure data + zod): what Card.ask carries, for native widgets.
  '^src/asks/content\\.ts$',
  // Which addresses are this machine (Teams' unauthenticated test mode accepts only those).
  '^src/net/url-policy\\.ts$',
  // The guarded dispatcher (URL policy on every address): the web chat's pushes go out through it.
  '^src/net/http\\.ts$',
  // Which protocol action an ask's answer is sent with (pure): native widgets submit with it.
  '^src/asks/protocol\\.ts$',
  // The inputs of the typing kinds and the answer they make (pure): chat modals and flows share it.
  '^src/asks/inputs\\.ts$',
];

/**
 * The layers of src/, low to high (docs/architecture.md says what each is). A module imports only
 * its own folder and lower levels; folders on one level are siblings and do not import each other.
 */
const LAYERS = [
  { base: '^src/(errors|log|bounded|health|pace|paced)\\.ts$' },
  { protocol: '^src/protocol/' },
  { policy: '^src/policy/' },
  { net: '^src/net/', config: '^src/config/' },
  { 'ask-model': '^src/asks/' },
  { render: '^src/render/', client: '^src/client/' },
  { adapter: '^src/adapter(-kit|-bulk|-signals|-definition|-repost)?\\.ts$' },
  { store: '^src/store/' },
  { cases: '^src/cases/' },
  { 'service-client': '^src/service-client/' },
  {
    tap: '^src/tap/',
    watch: '^src/watch/',
    notify: '^src/notify/',
    receipts: '^src/receipts/',
    'hitl-service': '^src/hitl-service/',
  },
  { 'asks-service': '^src/asks-service/', demo: '^src/demo/' },
  // The MCP server: an adapter at the edge over the asks service; server/ mounts it at /mcp.
  { mcp: '^src/mcp/' },
  // The MCP gateway: a proxy in front of upstream MCP servers, its questions asked as asks and its
  // tool calls gated by policy (tool-gate*.ts); it may use the MCP server's waits; server/ mounts
  // it at /mcp/gateway/<name>.
  { 'mcp-gateway': '^src/mcp-gateway/' },
  { server: '^src/server/' },
  {
    wiring:
      '^src/(relay|relay-runtime|services|watching|observe|undelivered|platform-start|index)\\.ts$',
  },
  { cli: '^src/cli(\\.ts$|/)' },
];

const ALL_LAYERS = LAYERS.flatMap((level) => Object.values(level));

/** One rule per layer: nothing it imports is on a higher level, or a sibling on its own level. */
const layerRules = LAYERS.flatMap((level, i) =>
  Object.entries(level).flatMap(([name, path]) => {
    const above = [
      ...Object.entries(level)
        .filter(([other]) => other !== name)
        .map(([, p]) => p),
      ...LAYERS.slice(i + 1).flatMap((l) => Object.values(l)),
    ];
    if (!above.length) return [];
    return [
      {
        name: `layer-${name}`,
        comment: `${name} imports only lower layers (LAYERS in .dependency-cruiser.cjs).`,
        severity: 'error',
        from: { path },
        to: { path: above },
      },
    ];
  }),
);

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'module-in-a-layer',
      comment: 'Every module of src/ belongs to a layer: add a new folder to LAYERS.',
      severity: 'error',
      from: { path: '^src/', pathNot: ALL_LAYERS },
      to: {},
    },
    {
      name: 'client-imports-only-protocol-and-ask-model',
      comment:
        'The client package (packages/client) is src/client/ and what it imports: keep it small.',
      severity: 'error',
      from: { path: '^src/client/' },
      to: { path: '^src/', pathNot: '^src/(client|protocol|asks)/' },
    },
    {
      name: 'product-needs-no-demo',
      comment: 'Only the CLI mounts the demo (DEMO=1); nothing of the product imports it.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/demo/', '^src/cli(\\.ts$|/)'] },
      to: { path: '^src/demo/' },
    },
    {
      name: 'no-circular',
      comment:
        'An import cycle (type-only imports count: a module signature says what it touches).',
      severity: 'error',
      from: { path: '^(src|platforms)/' },
      to: { circular: true },
    },
    {
      name: 'core-imports-no-platform-sdk',
      comment: 'src/ never imports a platform SDK, in any form.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: `node_modules/(${ANY_SDK})` },
    },
    {
      name: 'core-imports-no-platform',
      comment:
        'Only the composition root (src/cli) reaches platforms/, and only through registry.ts.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/cli(\\.ts$|/)' },
      to: { path: '^platforms/' },
    },
    {
      name: 'cli-reaches-only-the-registry',
      severity: 'error',
      from: { path: '^src/cli(\\.ts$|/)' },
      to: { path: '^platforms/', pathNot: '^platforms/registry\\.ts$' },
    },
    {
      name: 'no-cross-platform-import',
      comment: 'One platform = one folder: a platform never imports another one.',
      severity: 'error',
      from: { path: '^platforms/([^/]+)/' },
      to: { path: '^platforms/', pathNot: ['^platforms/$1/'] },
    },
    {
      name: 'no-create-require',
      comment:
        'createRequire would hide an import from these rules; ESM imports say what they load.',
      severity: 'error',
      from: { path: '^(src|platforms)/' },
      to: { dependencyTypes: ['core'], path: '^(node:)?module$' },
    },
    ...Object.entries(SDK).map(([platform, own]) => ({
      name: `only-${platform}-imports-its-sdk`,
      severity: 'error',
      from: { pathNot: `^platforms/${platform}/` },
      to: { path: `node_modules/(${own})` },
    })),
    {
      name: 'platform-uses-only-the-adapter-surface',
      comment:
        'A platform talks to the core only through the adapter contract (not the services, store, ...).',
      severity: 'error',
      from: { path: '^platforms/', pathNot: '^platforms/registry\\.ts$' },
      to: { path: '^src/', pathNot: CORE_SURFACE },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6', 'cjs', 'tsd'],
  },
};
