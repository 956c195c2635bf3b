/** docs/DEPLOY.md covers what a public install needs, and every platform guide links to it. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

it('every platform guide links to docs/DEPLOY.md, which names each setting a server needs', () => {
  const deploy = readFileSync('docs/DEPLOY.md', 'utf8');
  for (const word of [
    '`HOST`',
    '`PUBLIC_URL`',
    '`RELAY_API_KEY`',
    '`RELAY_SECRET_KEY`',
    '`WEB_CHAT_TOKEN`',
    'deploy/Caddyfile',
    'long polling',
    'Socket Mode',
    'gateway',
    'TELEGRAM_WEBHOOK_URL',
    'SLACK_SIGNING_SECRET',
    'DISCORD_PUBLIC_KEY',
    '/api/messages',
  ])
    expect(deploy, word).toContain(word);
  expect(existsSync('deploy/Caddyfile')).toBe(true);
  const guides = readdirSync('platforms', { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(`platforms/${d.name}/README.md`))
    .map((d) => `platforms/${d.name}/README.md`);
  expect(guides.length).toBeGreaterThanOrEqual(4);
  for (const g of guides) expect(readFileSync(g, 'utf8'), g).toContain('](../../docs/DEPLOY.md)');
  expect(readFileSync('README.md', 'utf8')).toContain('](docs/DEPLOY.md)');
});
