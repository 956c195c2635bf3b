#!/usr/bin/env node
/** The command line entry (`npm start` runs `tsx src/cli.ts serve`); the commands live in src/cli/. */
import { main } from './cli/main.ts';
import { CliError, printError } from './cli/output.ts';

const io = {
  out: (text: string) => void process.stdout.write(text),
  err: (text: string) => void process.stderr.write(text),
};

async function stdin(): Promise<string> {
  // A terminal would wait for typing forever: say what to give instead.
  if (process.stdin.isTTY)
    throw new CliError(
      'give a file, or pipe the body in: hitl-relay send --to <target> - < case.json',
      2,
    );
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

main(process.argv.slice(2), { io, env: process.env, stdin }).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err) => {
    process.exitCode = printError(io, '', err, false);
  },
);
