/**
 * Values of every JSON type and the edges a schema's type checks turn on (null and undefined,
 * booleans, integers and fractions, unsafe integers, NaN and Infinity, empty and filled strings,
 * arrays and objects): the values the fast-path readers' tests put in each field to check that
 * nothing their schema refuses is ever taken as it is.
 */
export const JSON_TYPE_PROBES: readonly unknown[] = [
  undefined,
  null,
  true,
  false,
  0,
  1,
  -1,
  1.5,
  2 ** 60,
  NaN,
  Infinity,
  '',
  'x',
  [],
  ['a'],
  [1],
  {},
  { a: 'b' },
  { a: 1 },
];
