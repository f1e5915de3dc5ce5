package herald;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.KeyValue;
import de.bwaldvogel.mongo.backend.ValueComparator;
import de.bwaldvogel.mongo.bson.Document;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A non-unique (secondary) index kept in key order, as MongoDB keeps one; mongo-java-server's own
 * hold nothing. It indexes every document (a partial or sparse declaration is not honoured, which
 * only makes it larger), and a query served from it is still matched against the whole filter, so
 * what it yields is a superset of the answer, never less. If a document cannot be indexed (parallel
 * arrays, an empty array), the index stops serving queries rather than refuse the write.
 */
final class OrderedIndex extends Index<Integer> {
  private static final Object LOWEST = new Object();
  private static final Object HIGHEST = new Object();
  private static final Comparator<Object> VALUES = ValueComparator.ascWithoutListHandling();
  /** Beyond this many combinations of `$in` values a plan is not worth making. */
  private static final int MAX_PREFIXES = 1_000;

  /** Positions in index order; `sorted` when they already follow the query's sort. */
  record Plan(Iterable<Integer> positions, boolean sorted, int score) {}

  private final TreeMap<KeyValue, Set<Integer>> entries;
  private final Map<Integer, Set<KeyValue>> keysAt = new HashMap<>();
  private final Map<Object, Integer> positionOfId = new HashMap<>();
  private boolean multikey;
  private boolean unusable;

  OrderedIndex(String name, List<IndexKey> keys) {
    // Declared sparse, as the stand-in declares the secondary indexes it does not build, so that
    // the options it lists (and compares when an index is declared again) stay the same.
    super(name, keys, true);
    List<Boolean> ascending = keys.stream().map(IndexKey::isAscending).toList();
    entries = new TreeMap<>((a, b) -> compareKeys(a, b, ascending));
  }

  private static int compareKeys(KeyValue a, KeyValue b, List<Boolean> ascending) {
    for (int i = 0; i < a.size(); i++) {
      Object x = a.get(i);
      Object y = b.get(i);
      int order;
      if (x == y) order = 0;
      else if (x == LOWEST || y == HIGHEST) return -1;
      else if (x == HIGHEST || y == LOWEST) return 1;
      else order = VALUES.compare(x, y);
      if (order != 0) return ascending.get(i) ? order : -order;
    }
    return 0;
  }

  @Override
  public Integer getPosition(Document document) {
    return null;
  }

  @Override
  public void checkAdd(Document document, MongoCollection<Integer> collection) {}

  @Override
  public void add(Document document, Integer position, MongoCollection<Integer> collection) {
    if (!unusable) index(document, position, null);
  }

  /**
   * Puts `document` at `position` into the index; when it replaces a document there (`replacedId`),
   * only if its keys differ, as MongoDB leaves the entries of an update that changes none of the
   * index's fields.
   */
  private void index(Document document, Integer position, Object replacedId) {
    try {
      Set<KeyValue> keys = getKeyValues(document);
      // An empty array yields no key here, where MongoDB indexes it as undefined: such a document
      // would be missed, so the index stops serving queries.
      if (keys.isEmpty()) throw new IllegalStateException("no key");
      if (replacedId != null) {
        if (keys.equals(keysAt.get(position))) return;
        forget(position);
        positionOfId.remove(replacedId);
      }
      if (keys.size() > 1) multikey = true;
      for (KeyValue key : keys) entries.computeIfAbsent(key, k -> new LinkedHashSet<>()).add(position);
      keysAt.put(position, keys);
      positionOfId.put(document.get("_id"), position);
    } catch (RuntimeException cannotIndex) {
      unusable = true;
      drop();
    }
  }

  /** Returns no position: the collection takes it from its `_id` index. */
  @Override
  public Integer remove(Document document) {
    Integer position = positionOfId.remove(document.get("_id"));
    if (position != null) forget(position);
    return null;
  }

  private void forget(Integer position) {
    Set<KeyValue> keys = keysAt.remove(position);
    if (keys == null) return;
    for (KeyValue key : keys) {
      Set<Integer> at = entries.get(key);
      if (at == null) continue;
      at.remove(position);
      if (at.isEmpty()) entries.remove(key);
    }
  }

  @Override
  public void checkUpdate(Document oldDocument, Document newDocument, MongoCollection<Integer> collection) {}

  @Override
  public void updateInPlace(Document oldDocument, Document newDocument, Integer position, MongoCollection<Integer> collection) {
    if (!unusable) index(newDocument, position, oldDocument.get("_id"));
  }

  /** The collection plans its queries itself (IndexServedCollection); the stand-in's planner never uses this index. */
  @Override
  public boolean canHandle(Document query) {
    return false;
  }

  @Override
  public Iterable<Integer> getPositions(Document query) {
    throw new UnsupportedOperationException();
  }

  @Override
  public long getCount() {
    return keysAt.size();
  }

  @Override
  public long getDataSize() {
    return 0;
  }

  @Override
  public void drop() {
    entries.clear();
    keysAt.clear();
    positionOfId.clear();
  }

  /**
   * How this index serves `query` sorted by `orderBy`, as MongoDB's index bounds would: equalities
   * (or `$in`) on a prefix of its fields, then at most one range; the sort is served when its
   * fields (less those fixed by an equality) follow the prefix in the index's order or its reverse.
   * Null when the index does not narrow the read or serve the sort.
   */
  Plan plan(Document query, Document orderBy) {
    if (unusable) return null;
    List<IndexKey> keys = getKeys();
    List<List<Object>> prefix = new ArrayList<>();
    Object low = null;
    Object high = null;
    boolean range = false;
    for (IndexKey key : keys) {
      Object condition = query.get(key.getKey());
      List<Object> values = condition == null ? null : equalities(condition);
      if (values != null) {
        prefix.add(values);
        continue;
      }
      if (condition instanceof Document operators) {
        Object[] bounds = bounds(operators);
        if (bounds != null) {
          range = true;
          low = bounds[0];
          high = bounds[1];
        }
      }
      break;
    }
    boolean sorts = orderBy != null && !orderBy.isEmpty();
    if (sorts && orderBy.containsKey("$natural")) return null;
    Boolean reverse = sorts ? sortDirection(orderBy, prefix, keys) : Boolean.FALSE;
    // Without bounds the index is worth walking only for the order it gives.
    if (prefix.isEmpty() && !range && (!sorts || reverse == null)) return null;

    boolean backwards = Boolean.TRUE.equals(reverse);
    List<NavigableMap<KeyValue, Set<Integer>>> spans = spans(prefix, range, low, high, backwards);
    if (spans == null) return null;
    boolean sorted = reverse != null && spans.size() == 1 && !multikey;
    int score = 10 * prefix.size() + (range ? 5 : 0) + (sorts && sorted ? 3 : 0);
    boolean distinct = !multikey;
    Iterable<Integer> positions = () -> walk(spans, distinct);
    return new Plan(positions, sorted, score);
  }

  /**
   * The index's entries for every combination of the prefix's values, each then within
   * `[low, high]` on the next field when `range`; null when there are too many combinations.
   */
  private List<NavigableMap<KeyValue, Set<Integer>>> spans(List<List<Object>> prefix, boolean range, Object low, Object high, boolean backwards) {
    List<IndexKey> keys = getKeys();
    List<List<Object>> combinations = new ArrayList<>(List.of(List.of()));
    for (List<Object> values : prefix) {
      List<List<Object>> next = new ArrayList<>();
      for (List<Object> head : combinations) {
        for (Object value : values) {
          List<Object> longer = new ArrayList<>(head);
          longer.add(value);
          next.add(longer);
        }
      }
      if (next.size() > MAX_PREFIXES) return null;
      combinations = next;
    }
    List<NavigableMap<KeyValue, Set<Integer>>> spans = new ArrayList<>();
    for (List<Object> head : combinations) {
      List<Object> from = new ArrayList<>(head);
      List<Object> to = new ArrayList<>(head);
      if (range) {
        boolean ascending = keys.get(head.size()).isAscending();
        from.add(ascending ? orLowest(low) : orLowest(high));
        to.add(ascending ? orHighest(high) : orHighest(low));
      }
      while (from.size() < keys.size()) from.add(LOWEST);
      while (to.size() < keys.size()) to.add(HIGHEST);
      NavigableMap<KeyValue, Set<Integer>> span = entries.subMap(new KeyValue(from), true, new KeyValue(to), true);
      spans.add(backwards ? span.descendingMap() : span);
    }
    return spans;
  }

  /**
   * How many documents match `filter` when it is only equalities on leading fields of this index,
   * counted from the index alone as MongoDB's COUNT_SCAN does; null when the index cannot tell.
   */
  Long count(Document filter) {
    if (unusable || multikey || filter.isEmpty()) return null;
    List<IndexKey> keys = getKeys();
    if (filter.size() > keys.size()) return null;
    List<List<Object>> prefix = new ArrayList<>();
    for (IndexKey key : keys.subList(0, filter.size())) {
      List<Object> values = filter.containsKey(key.getKey()) ? equalities(filter.get(key.getKey())) : null;
      if (values == null) return null;
      prefix.add(values);
    }
    List<NavigableMap<KeyValue, Set<Integer>>> spans = spans(prefix, false, null, null, false);
    if (spans == null) return null;
    long count = 0;
    for (NavigableMap<KeyValue, Set<Integer>> span : spans) {
      for (Set<Integer> positions : span.values()) count += positions.size();
    }
    return count;
  }

  /**
   * The positions of the spans' entries, one at a time: a stream's `flatMap` turned into an
   * iterator would buffer a whole span before the first position, and a `limit` would stop nothing.
   */
  private static Iterator<Integer> walk(List<NavigableMap<KeyValue, Set<Integer>>> spans, boolean distinct) {
    Iterator<Set<Integer>> buckets = spans.stream().map(span -> span.values().iterator()).reduce(Collections.emptyIterator(), OrderedIndex::concat);
    Set<Integer> seen = distinct ? null : new HashSet<>();
    return new Iterator<>() {
      private Iterator<Integer> bucket = Collections.emptyIterator();
      private Integer next;

      @Override
      public boolean hasNext() {
        while (next == null) {
          while (!bucket.hasNext()) {
            if (!buckets.hasNext()) return false;
            bucket = buckets.next().iterator();
          }
          Integer candidate = bucket.next();
          if (seen == null || seen.add(candidate)) next = candidate;
        }
        return true;
      }

      @Override
      public Integer next() {
        if (!hasNext()) throw new NoSuchElementException();
        Integer position = next;
        next = null;
        return position;
      }
    };
  }

  private static <T> Iterator<T> concat(Iterator<T> first, Iterator<T> second) {
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return first.hasNext() || second.hasNext();
      }

      @Override
      public T next() {
        return first.hasNext() ? first.next() : second.next();
      }
    };
  }

  /**
   * Whether walking the index backwards serves `orderBy` (false: forwards), or null when neither
   * does. Fields fixed by a one-value equality may appear anywhere in the sort.
   */
  private static Boolean sortDirection(Document orderBy, List<List<Object>> prefix, List<IndexKey> keys) {
    Set<String> fixed = new HashSet<>();
    for (int i = 0; i < prefix.size(); i++) {
      if (prefix.get(i).size() != 1) return null;
      fixed.add(keys.get(i).getKey());
    }
    Boolean reverse = null;
    int next = prefix.size();
    for (Map.Entry<String, Object> sort : orderBy.entrySet()) {
      if (fixed.contains(sort.getKey())) continue;
      if (next >= keys.size() || !keys.get(next).getKey().equals(sort.getKey()) || !(sort.getValue() instanceof Number direction)) return null;
      boolean backwards = (direction.doubleValue() < 0) == keys.get(next).isAscending();
      if (reverse != null && reverse != backwards) return null;
      reverse = backwards;
      next++;
    }
    return reverse == null ? Boolean.FALSE : reverse;
  }

  /** The values an equality (a value, `$eq` or `$in`) allows, or null if it is not one the index can look up. */
  private static List<Object> equalities(Object condition) {
    if (condition instanceof Document operators) {
      if (operators.size() != 1) return null;
      if (operators.get("$eq") != null) return lookable(operators.get("$eq")) ? List.of(operators.get("$eq")) : null;
      if (operators.get("$in") instanceof Collection<?> in && !in.isEmpty() && in.stream().allMatch(OrderedIndex::lookable)) return new ArrayList<>(in);
      return null;
    }
    return lookable(condition) ? List.of(condition) : null;
  }

  /** `[low, high]` (either null when open) of a range of `$gt`/`$gte`/`$lt`/`$lte`, or null. */
  private static Object[] bounds(Document operators) {
    Object low = null;
    Object high = null;
    for (Map.Entry<String, Object> operator : operators.entrySet()) {
      Object value = operator.getValue();
      if (!lookable(value)) return null;
      switch (operator.getKey()) {
        case "$gt", "$gte" -> {
          if (low != null) return null;
          low = value;
        }
        case "$lt", "$lte" -> {
          if (high != null) return null;
          high = value;
        }
        default -> {
          return null;
        }
      }
    }
    return new Object[] {low, high};
  }

  /** A scalar the index orders as MongoDB does: not null or missing, not a document, array or pattern. */
  private static boolean lookable(Object value) {
    return value != null && !(value instanceof Document) && !(value instanceof Collection) && !(value instanceof Pattern)
        && !value.getClass().getName().startsWith("de.bwaldvogel.mongo.backend.Missing");
  }

  private static Object orLowest(Object value) {
    return value == null ? LOWEST : value;
  }

  private static Object orHighest(Object value) {
    return value == null ? HIGHEST : value;
  }
}
