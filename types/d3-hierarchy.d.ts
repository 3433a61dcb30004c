// d3-hierarchy 3.1.2 (vendored by build.sh as /vendor/d3-hierarchy/src/index.js; the package ships
// no declarations): what the panel's Cost tab uses of it, typed for tsconfig.json's "paths".

export interface HierarchyNode<T> {
  data: T;
  depth: number;
  height: number;
  parent: HierarchyNode<T> | null;
  children?: HierarchyNode<T>[];
  value?: number;
  sum(value: (d: T) => number): this;
  sort(compare: (a: HierarchyNode<T>, b: HierarchyNode<T>) => number): this;
  count(): this;
  each(fn: (node: HierarchyNode<T>) => void): this;
  eachBefore(fn: (node: HierarchyNode<T>) => void): this;
  descendants(): HierarchyNode<T>[];
  ancestors(): HierarchyNode<T>[];
  leaves(): HierarchyNode<T>[];
}

export interface HierarchyRectangularNode<T> extends HierarchyNode<T> {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  parent: HierarchyRectangularNode<T> | null;
  children?: HierarchyRectangularNode<T>[];
  descendants(): HierarchyRectangularNode<T>[];
}

export function hierarchy<T>(data: T, children?: (d: T) => Iterable<T> | null | undefined): HierarchyNode<T>;

export interface PartitionLayout<T> {
  (root: HierarchyNode<T>): HierarchyRectangularNode<T>;
  size(size: [number, number]): this;
  padding(padding: number): this;
  round(round: boolean): this;
}
export function partition<T>(): PartitionLayout<T>;

export interface TreemapLayout<T> {
  (root: HierarchyNode<T>): HierarchyRectangularNode<T>;
  size(size: [number, number]): this;
  paddingInner(padding: number): this;
  paddingTop(padding: number): this;
  round(round: boolean): this;
}
export function treemap<T>(): TreemapLayout<T>;
