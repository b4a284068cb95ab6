// Deltas from the server (dorf/server/delta.py has the same rules): a list of operations on the
// description of the game, each [op, path, ...] with the path's keys and list indices joined by "/":
//   ["s", path, value]                set the value at path
//   ["d", path]                       delete the key at path
//   ["l", path, start, count, items]  in the list at path, replace count items from start by items
// The description given is not changed: what an operation touches is copied along its path, so the
// previous state stays as it was (the page compares the two to show what happened).

export function patch(doc, ops) {
  const root = { "": doc };
  const copied = new Set([root]);
  const child = (parent, key) => {
    const index = Array.isArray(parent) ? Number(key) : key;
    if (Array.isArray(parent) ? !(index >= 0 && index < parent.length) : !(parent && typeof parent === "object" && key in parent)) {
      throw new Error(`no ${key} in the description`);
    }
    let value = parent[index];
    if (value && typeof value === "object" && !copied.has(value)) {
      value = Array.isArray(value) ? value.slice() : { ...value };
      parent[index] = value;
      copied.add(value);
    }
    return value;
  };
  for (const op of ops) {
    const keys = ["", ...String(op[1]).split("/")];
    let parent = root;
    for (const key of keys.slice(0, -1)) parent = child(parent, key);
    const last = keys[keys.length - 1];
    if (op[0] === "s") {
      if (Array.isArray(parent)) {
        if (!(Number(last) >= 0 && Number(last) < parent.length)) throw new Error(`no item ${last}`);
        parent[Number(last)] = op[2];
      } else parent[last] = op[2];
    } else if (op[0] === "d") {
      delete parent[last];
    } else if (op[0] === "l") {
      const list = child(parent, last);
      if (!Array.isArray(list) || op[2] + op[3] > list.length) throw new Error(`no list at ${op[1]}`);
      list.splice(op[2], op[3], ...op[4]);
    } else {
      throw new Error(`unknown operation ${op[0]}`);
    }
  }
  return root[""];
}
