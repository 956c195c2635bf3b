/** Waiting for work with a bound: a stop, a check or a follow-up must not hang on what never ends. */

/** Resolves true when `work` settles within `ms`, false when it does not (it goes on unawaited). */
export function bounded(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
