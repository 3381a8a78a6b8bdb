/** longcall's version, printed by `longcall --version` and sent as serverInfo. */
export const VERSION = "0.1.0";
