/**
 * docker-compose.yml, deploy/ and the Dockerfile, checked without a Docker engine: the services and
 * their wiring, that every environment variable set for our image is one the code reads, and the
 * image's rules (Node major of package.json, non-root, health check).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { platformEnvVars } from '../../platforms/registry.ts';
import { CORE_ENV_VARS } from '../../src/config/config.ts';
import { DEMO_ENV_VARS } from '../../src/demo/env.ts';

/** Read by Node itself, not by our config code (the extra CA that signs the demo's certificate). */
const NODE_RUNTIME_ENV_VARS = ['NODE_EXTRA_CA_CERTS'];

const read = (path: string) => readFileSync(path, 'utf8');
const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, any>;
  volumes: Record<string, unknown>;
};
const services = compose.services;
/** Services that run our image (built from this repository). */
const ours = Object.entries(services).filter(([, s]) => s.build !== undefined);
const replicas = ours.filter(([, s]) => s.command === undefined);
const demo = services.demo;
const lb = services.lb;
const caddyfile = read('deploy/Caddyfile');
const envOf = (s: any): Record<string, string> => s.environment ?? {};

/** The instructions of the Dockerfile's last stage, ARG defaults substituted into FROM. */
function dockerfile(): { from: string[]; final: string[] } {
  const lines = read('Dockerfile')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const args = Object.fromEntries(
    lines.flatMap((l) => {
      const m = /^ARG (\w+)=(\S+)/.exec(l);
      return m ? [[m[1], m[2]]] : [];
    }),
  );
  const from = lines
    .filter((l) => l.startsWith('FROM '))
    .map((l) => l.split(/\s+/)[1]!.replace(/\$\{(\w+)\}/g, (_, n) => args[n] ?? ''));
  const last = lines.map((l) => l.startsWith('FROM ')).lastIndexOf(true);
  return { from, final: lines.slice(last) };
}

describe('docker-compose.yml', () => {
  it('runs PostgreSQL, two relay replicas, the demo service and a load balancer', () => {
    expect(Object.keys(services).sort()).toEqual(['demo', 'lb', 'postgres', 'relay1', 'relay2']);
    expect(services.postgres.image).toMatch(/^postgres:\d+/);
    expect(services.postgres.healthcheck.test.join(' ')).toContain('pg_isready');
    expect(replicas.map(([name]) => name)).toEqual(['relay1', 'relay2']);
    expect(demo.command).toEqual(['node', 'dist/src/demo/serve.js']);
    expect(lb.image).toMatch(/^caddy:2/);
  });

  it('health-checks each replica on /readyz (ready: every platform and the database answer)', () => {
    for (const [, s] of replicas) expect(s.healthcheck.test.join(' ')).toContain('/readyz');
  });

  it('gives every replica the same settings: PostgreSQL, keys from the environment, PUBLIC_URL', () => {
    const [first, ...rest] = replicas.map(([, s]) => s);
    for (const s of rest) expect(s).toEqual(first);
    const env = envOf(first);
    const db = new URL(env.DATABASE_URL!.replace(/\$\{[^}]*\}/, 'x'));
    expect(db.protocol).toBe('postgres:');
    expect(services[db.hostname]).toBe(services.postgres);
    expect(first.depends_on.postgres.condition).toBe('service_healthy');
    // Secrets are never written into the file: compose refuses to start without them.
    expect(env.RELAY_API_KEY).toMatch(/^\$\{RELAY_API_KEY:\?/);
    expect(env.RELAY_SECRET_KEY).toMatch(/^\$\{RELAY_SECRET_KEY:\?/);
    expect(env.DATABASE_URL).toMatch(/\$\{POSTGRES_PASSWORD:\?/);
    expect(envOf(services.postgres).POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
    expect(env.HOST).toBe('0.0.0.0');
    expect(env.DEMO).toBe('0');
    expect(env.PUBLIC_URL).toMatch(/^\$\{PUBLIC_URL:-http:\/\/localhost:8080\}$/);
  });

  it('balances over every replica on the port PUBLIC_URL names, checking /readyz', () => {
    expect(lb.ports).toContain('8080:8080');
    const site = /http:\/\/:8080 \{([\s\S]*?)\n\}/.exec(caddyfile)?.[1] ?? '';
    for (const [name, s] of replicas) {
      expect(site).toContain(`${name}:${envOf(s).PORT}`);
      expect(s.expose).toContain(envOf(s).PORT);
    }
    expect(site).toContain('health_uri /readyz');
    expect(lb.volumes).toContain('./deploy/Caddyfile:/etc/caddy/Caddyfile:ro');
  });

  it('serves the demo over HTTPS under a name the replicas allow and a CA they trust', () => {
    const base = new URL(envOf(demo).DEMO_BASE_URL!);
    expect(base.protocol).toBe('https:');
    expect(lb.networks.default.aliases).toContain(base.hostname);
    expect(lb.ports).toContain(`${base.port}:${base.port}`);
    const site = new RegExp(`https://${base.host.replace('.', '\\.')} \\{([\\s\\S]*?)\\n\\}`).exec(
      caddyfile,
    )?.[1];
    expect(site).toContain('tls internal');
    expect(site).toContain(`demo:${envOf(demo).PORT}`);
    expect(lb.entrypoint).toEqual(['/bin/sh', '/etc/caddy/caddy-start.sh']);
    expect(lb.volumes).toContain('./deploy/caddy-start.sh:/etc/caddy/caddy-start.sh:ro');
    expect(existsSync('deploy/caddy-start.sh')).toBe(true);
    for (const [, s] of replicas) {
      const env = envOf(s);
      expect(env.RELAY_ALLOW_HOSTS!.split(',')).toContain(base.hostname);
      // The CA file lives on a volume the load balancer writes and the replicas read.
      const caDir = env.NODE_EXTRA_CA_CERTS!.replace(/\/[^/]+$/, '');
      const volume = (s.volumes as string[]).find((v) => v.split(':')[1] === caDir)!;
      expect(volume).toMatch(/:ro$/);
      expect(lb.volumes).toContain(`${volume.split(':')[0]}:${caDir}`);
      expect(s.depends_on.lb.condition).toBe('service_healthy');
    }
    expect(lb.healthcheck.test.join(' ')).toContain('/ca/root.crt');
    expect(read('deploy/caddy-start.sh')).toContain('/ca/root.crt');
  });

  it('sets no environment variable that the code does not read', async () => {
    const known = new Set<string>([
      ...CORE_ENV_VARS,
      ...(await platformEnvVars()),
      ...NODE_RUNTIME_ENV_VARS,
    ]);
    for (const [name, s] of replicas)
      for (const key of Object.keys(envOf(s))) expect(known.has(key), `${name}: ${key}`).toBe(true);
    for (const key of Object.keys(envOf(demo)))
      expect((DEMO_ENV_VARS as readonly string[]).includes(key), `demo: ${key}`).toBe(true);
    for (const [, s] of ours) expect(Object.keys(envOf(s)).length).toBeGreaterThan(0);
  });

  it('DEMO_ENV_VARS names exactly what the demo service reads', () => {
    const read_ = new Set(
      [...read('src/demo/serve.ts').matchAll(/process\.env\.([A-Z0-9_]+)/g)].map((m) => m[1]),
    );
    expect([...read_].sort()).toEqual([...DEMO_ENV_VARS].sort());
  });

  it('declares every named volume it mounts', () => {
    const named = Object.values(services).flatMap((s: any) =>
      (s.volumes ?? [])
        .map((v: string) => v.split(':')[0]!)
        .filter((v: string) => !v.startsWith('.')),
    );
    for (const v of named) expect(Object.keys(compose.volumes)).toContain(v);
  });
});

describe('Dockerfile', () => {
  const { from, final } = dockerfile();
  const engines = JSON.parse(read('package.json')).engines.node as string;

  it('builds and runs on the Node major of package.json engines, slim', () => {
    const major = /(\d+)/.exec(engines)?.[1];
    for (const image of from) expect(image).toBe(`node:${major}-bookworm-slim`);
  });

  it('runs as a non-root user with a health check on /readyz, port 8787 and a DATA_DIR volume', () => {
    const user = final
      .filter((l) => l.startsWith('USER '))
      .at(-1)
      ?.split(/\s+/)[1];
    expect(user).toBeDefined();
    expect(['root', '0', '0:0']).not.toContain(user);
    const health = final.find((l) => l.startsWith('HEALTHCHECK '));
    expect(health).toContain('/readyz');
    expect(final).toContain('EXPOSE 8787');
    expect(final.join('\n')).toMatch(/DATA_DIR=\/data/);
    expect(final).toContain('VOLUME ["/data"]');
  });

  it('installs with npm ci, builds, ships production dependencies only, and the templates', () => {
    const text = read('Dockerfile');
    expect(text).toContain('npm ci');
    expect(text).toContain('npm run build');
    expect(text).toContain('npm prune --omit=dev');
    // The build copies templates/ into dist/, where the compiled renderer looks for them.
    expect(text).toContain('COPY templates ./templates');
    expect(JSON.parse(read('package.json')).scripts.build).toContain("'dist/templates'");
    expect(final).toContain('COPY --from=build /build/dist ./dist');
    expect(final.at(-1)).toBe('CMD ["node", "bin/hitl-relay.js", "serve"]');
    // The entry points and the compiled files they run come from these sources.
    expect(read('bin/hitl-relay.js')).toContain('../dist/src/cli.js');
    expect(existsSync('src/cli.ts')).toBe(true);
    expect(existsSync('src/demo/serve.ts')).toBe(true);
  });

  it('ships every package the relay imports (the image prunes devDependencies)', () => {
    const deps = Object.keys(JSON.parse(read('package.json')).dependencies);
    const files = ['src', 'platforms'].flatMap((dir) =>
      readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts'))
        .map((f) => join(dir, f)),
    );
    const seen = new Set<string>();
    // Import statements only (a line starting import/export/`}` ... from, or import()): the
    // word "from" inside a string (a tool's description) is no import.
    for (const file of files)
      for (const m of read(file).matchAll(
        /(?:^(?:import|export|\})[^'\n]*\bfrom|\bimport\()\s*'([^.'][^']*)'/gm,
      )) {
        const spec = m[1]!;
        if (spec.startsWith('node:')) continue;
        const pkg = spec
          .split('/')
          .slice(0, spec.startsWith('@') ? 2 : 1)
          .join('/');
        expect(deps, `${file} imports ${pkg}`).toContain(pkg);
        seen.add(pkg);
      }
    expect(seen.size).toBeGreaterThan(10);
  });

  it('keeps secrets, dependencies and build output out of the build context', () => {
    const ignored = read('.dockerignore').split('\n');
    for (const entry of ['.git', 'node_modules', 'dist', 'data', '.env', 'relay.env'])
      expect(ignored).toContain(entry);
  });
});
