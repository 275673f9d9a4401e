/**
 * Taxonomy cycle detection, pure (seed: DetectTaxonomyCycles). Kahn's algorithm peels every node
 * that no cycle feeds; what is left holds the cycles and whatever hangs below them, so the left
 * part is split into strongly connected components to name exactly the nodes on a cycle.
 */

/** child -> parent (an is_a or subclass_of link). */
export type TaxonomyEdge = readonly [child: string, parent: string];

export type TaxonomyCycleReport = {
  hasCycle: boolean;
  /** Every node on some cycle, sorted. */
  cyclicNodes: string[];
  /** One entry per cycle group (strongly connected component), each sorted; groups sorted by first node. */
  cycles: string[][];
};

function adjacency(edges: readonly TaxonomyEdge[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [child, parent] of edges) {
    if (!out.has(parent)) out.set(parent, []);
    (out.get(child) ?? out.set(child, []).get(child)!).push(parent);
  }
  return out;
}

/** Kahn's topological sort: the nodes it cannot order (on a cycle or downstream of one). */
export function kahnLeftovers(edges: readonly TaxonomyEdge[]): Set<string> {
  const out = adjacency(edges);
  const indegree = new Map<string, number>([...out.keys()].map((node) => [node, 0]));
  for (const parents of out.values()) for (const parent of parents) indegree.set(parent, indegree.get(parent)! + 1);
  const ready = [...indegree].filter(([, d]) => d === 0).map(([node]) => node);
  const left = new Set(out.keys());
  while (ready.length > 0) {
    const node = ready.pop()!;
    left.delete(node);
    for (const parent of out.get(node)!) {
      const d = indegree.get(parent)! - 1;
      indegree.set(parent, d);
      if (d === 0) ready.push(parent);
    }
  }
  return left;
}

/** Strongly connected components of the subgraph on `nodes` (iterative Tarjan: deep chains must not overflow). */
function components(out: Map<string, string[]>, nodes: Set<string>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  for (const root of nodes) {
    if (index.has(root)) continue;
    const visit = (node: string) => ({ node, next: 0, parents: (out.get(node) ?? []).filter((p) => nodes.has(p)) });
    const work = [visit(root)];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work.at(-1)!;
      if (frame.next < frame.parents.length) {
        const parent = frame.parents[frame.next++]!;
        if (!index.has(parent)) {
          index.set(parent, counter);
          low.set(parent, counter++);
          stack.push(parent);
          onStack.add(parent);
          work.push(visit(parent));
        } else if (onStack.has(parent)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(parent)!));
        }
        continue;
      }
      work.pop();
      const caller = work.at(-1);
      if (caller) low.set(caller.node, Math.min(low.get(caller.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        found.push(component);
      }
    }
  }
  return found;
}

export function findTaxonomyCycles(edges: readonly TaxonomyEdge[]): TaxonomyCycleReport {
  const left = kahnLeftovers(edges);
  if (left.size === 0) return { hasCycle: false, cyclicNodes: [], cycles: [] };
  const out = adjacency(edges);
  const selfLoops = new Set(edges.filter(([c, p]) => c === p).map(([c]) => c));
  const cycles = components(out, left)
    .filter((group) => group.length > 1 || selfLoops.has(group[0]!))
    .map((group) => group.toSorted())
    .toSorted((a, b) => (a[0]! < b[0]! ? -1 : 1));
  return { hasCycle: cycles.length > 0, cyclicNodes: cycles.flat().toSorted(), cycles };
}
