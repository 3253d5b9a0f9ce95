import { getMetadataStorage, MetadataStorage } from 'class-validator';

type ValidationMetadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];

type Lookup = (
  target: object,
  schema: string,
  always: boolean,
  strictGroups: boolean,
  groups?: string[],
) => ValidationMetadata[];
type Grouping = (metadatas: ValidationMetadata[]) => Record<string, ValidationMetadata[]>;

/**
 * class-validator looks up a class's rules on every validation of every object, nested ones too, by scanning
 * every decorated class for its ancestors (class-validator#2686): a fifth of validating a queued approval
 * request. The rules of a class are fixed once its module has loaded, so each lookup, and its
 * grouping by property, is kept per class and options until a rule is added anywhere (a class loaded later,
 * a decorator registered at run time), which forgets them all. Callers only read what they get.
 */
export function cacheValidationMetadata(): void {
  const storage = getMetadataStorage() as unknown as {
    getTargetValidationMetadatas: Lookup;
    groupByPropertyName: Grouping;
    addValidationMetadata: (metadata: ValidationMetadata) => void;
    cachedLookups?: true;
  };
  if (storage.cachedLookups) return;
  storage.cachedLookups = true;

  let lookups = new WeakMap<object, Map<string, ValidationMetadata[]>>();
  let groupings = new WeakMap<ValidationMetadata[], Record<string, ValidationMetadata[]>>();
  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  const grouping = storage.groupByPropertyName.bind(storage);
  const add = storage.addValidationMetadata.bind(storage);

  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    // An object without a prototype has no constructor to keep its rules by.
    if (typeof target !== 'function') return lookup(target, schema, always, strictGroups, groups);
    // Nested objects are looked up with their parent's class name as `schema`: a plain string key then too.
    const key = groups?.length
      ? JSON.stringify([schema, always, strictGroups, groups])
      : `${+!!always}${+!!strictGroups}${schema ?? ''}`;
    let byOptions = lookups.get(target);
    if (!byOptions) lookups.set(target, (byOptions = new Map()));
    let metadatas = byOptions.get(key);
    if (!metadatas) byOptions.set(key, (metadatas = lookup(target, schema, always, strictGroups, groups)));
    return metadatas;
  };
  storage.groupByPropertyName = (metadatas) => {
    let grouped = groupings.get(metadatas);
    if (!grouped) groupings.set(metadatas, (grouped = grouping(metadatas)));
    return grouped;
  };
  storage.addValidationMetadata = (metadata) => {
    lookups = new WeakMap();
    groupings = new WeakMap();
    add(metadata);
  };
}
