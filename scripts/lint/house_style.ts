/**
 * The house style's rules that `deno lint` can check, as a lint plugin (deno.json `lint.plugins`):
 *
 * - `positional-params-max`: a function or method signature takes at most two positional parameters plus
 *   an options object (house style, "Names and tests"). A third parameter is accepted only when it is the
 *   last one and is named `options` or ends in `Options`; anything else past the second is reported,
 *   `...rest` included. It holds every file `deno lint` reads: runtime code, tests, test support and scripts.
 *
 * @module
 */

/** Positional parameters a function may take before its options object. */
export const POSITIONAL_PARAMS_MAX = 2;

type FunctionNode =
  | Deno.lint.FunctionDeclaration
  | Deno.lint.FunctionExpression
  | Deno.lint.ArrowFunctionExpression
  | Deno.lint.TSDeclareFunction
  | Deno.lint.TSMethodSignature;

/** The parameter's own name, through defaults, `...rest` and TypeScript parameter properties. */
function paramName(param: Deno.lint.Parameter): string | undefined {
  switch (param.type) {
    case "Identifier":
      return param.name;
    case "AssignmentPattern":
      return param.left.type === "Identifier" ? param.left.name : undefined;
    case "RestElement":
      return param.argument.type === "Identifier" ? param.argument.name : undefined;
    case "TSParameterProperty":
      return paramName(param.parameter as Deno.lint.Parameter);
    default:
      return undefined;
  }
}

/** Whether `name` names an options object. */
export function isOptionsName(name: string | undefined): boolean {
  return name === "options" || (name?.endsWith("Options") ?? false);
}

/** How many of `params` are positional: all of them, less a trailing options object. */
export function positionalCount(params: readonly Deno.lint.Parameter[]): number {
  const last = params.at(-1);
  return last !== undefined && isOptionsName(paramName(last)) ? params.length - 1 : params.length;
}

const positionalParamsMax: Deno.lint.Rule = {
  create(context) {
    const check = (node: FunctionNode) => {
      const count = positionalCount(node.params);
      if (count <= POSITIONAL_PARAMS_MAX) return;
      context.report({
        node,
        message: `Cannot take ${count} positional parameters: the house style allows ${POSITIONAL_PARAMS_MAX} ` +
          "plus an options object (named `options` or `...Options`)",
        hint: "Group the parameters that travel together into one object, or move the optional ones into options.",
      });
    };
    return {
      FunctionDeclaration: check,
      FunctionExpression: check,
      ArrowFunctionExpression: check,
      TSDeclareFunction: check,
      TSMethodSignature: check,
    };
  },
};

/** The plugin `deno lint` loads (deno.json `lint.plugins`). */
const plugin: Deno.lint.Plugin = {
  name: "house-style",
  rules: { "positional-params-max": positionalParamsMax },
};
export default plugin;
