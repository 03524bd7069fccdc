/* onyx-layout-cache.c: the caches of group layouts.
 *
 * In memory, each engine keeps its group layouts by group contents and expansion,
 * bounded by bytes, least recently used dropped first. On disk, a folder shared by
 * engines and processes keeps what dot made of each input (DotResult), named by the
 * SHA-256 of that input: reading it back needs no libgvc and no Graphviz lock.
 *
 * File format (native byte order, which the header records): the header below,
 * then n_boxes × 4 doubles (x, y, width, height), n_edges × 4 doubles (the label
 * boxes, width -1 for none), n_edges × guint32 (doubles per spline), n_doubles
 * doubles (the splines' x, y pairs). */
#include "onyx-layout-private.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <graphviz/graphviz_version.h>
#include <math.h>
#include <string.h>
#include <utime.h> /* g_utime */

/* Bump when the file format or what a key covers changes. */
#define FORMAT_VERSION 2
#define MAGIC "ONYXLYT\n"
#define BYTE_ORDER_MARK 0x01020304u
#define FILE_SUFFIX ".layout"
#define KEY_LENGTH 64 /* hex SHA-256 */

typedef struct {
  char magic[8];
  guint32 version;
  guint32 byte_order;
  char key[KEY_LENGTH];
  guint32 n_boxes, n_edges, n_doubles, reserved;
  double width, height;
} FileHeader;

struct _OnyxLayoutDiskCache {
  char *dir;
  guint64 max_bytes;
  GMutex lock;              /* guards what follows */
  gboolean counted;         /* `bytes` holds the folder's size */
  guint64 bytes;
  OnyxLayoutCacheStats stats;
};

typedef struct {
  char *key;
  GroupLayout *layout;
  GList link;               /* in engine->cache_order; data is the entry */
} MemoryEntry;

/* Group layouts */

static void
clear_group_layout (GroupLayout *layout)
{
  g_hash_table_unref (layout->child_boxes);
  for (guint i = 0; i < layout->edges->len; i++)
    {
      LevelEdge *edge = &g_array_index (layout->edges, LevelEdge, i);
      g_free (edge->from_key);
      g_free (edge->to_key);
      g_free (edge->tensor);
      g_array_unref (edge->points);
    }
  g_array_unref (layout->edges);
}

GroupLayout *
onyx_layout_group_layout_new (void)
{
  GroupLayout *layout = g_atomic_rc_box_new0 (GroupLayout);

  layout->child_boxes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  layout->edges = g_array_new (FALSE, FALSE, sizeof (LevelEdge));
  return layout;
}

GroupLayout *
onyx_layout_group_layout_ref (GroupLayout *layout)
{
  return g_atomic_rc_box_acquire (layout);
}

void
onyx_layout_group_layout_unref (GroupLayout *layout)
{
  g_atomic_rc_box_release_full (layout, (GDestroyNotify) clear_group_layout);
}

static int
compare_item_keys (gconstpointer a, gconstpointer b)
{
  int x = atoi (*(const char *const *) a + 2), y = atoi (*(const char *const *) b + 2);
  return (x > y) - (x < y);
}

static char *
renamed (GHashTable *names, const char *key)
{
  const char *name = g_hash_table_lookup (names, key);
  return g_strdup (name != NULL ? name : key);
}

GroupLayout *
onyx_layout_group_layout_renumbered (const GroupLayout *cached, GPtrArray *item_keys)
{
  g_autoptr (GPtrArray) old_keys = g_ptr_array_new ();
  g_autoptr (GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  GroupLayout *layout;
  GHashTableIter iter;
  gpointer key, box;

  g_hash_table_iter_init (&iter, cached->child_boxes);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (g_str_has_prefix (key, "i:"))
      g_ptr_array_add (old_keys, key);
  if (old_keys->len != item_keys->len)
    return NULL;
  /* Items are numbered in graph order: the k-th lowest then is the k-th now. */
  g_ptr_array_sort (old_keys, compare_item_keys);
  for (guint i = 0; i < old_keys->len; i++)
    g_hash_table_insert (names, old_keys->pdata[i], item_keys->pdata[i]);
  layout = onyx_layout_group_layout_new ();
  layout->width = cached->width;
  layout->height = cached->height;
  layout->bytes = cached->bytes;
  g_hash_table_iter_init (&iter, cached->child_boxes);
  while (g_hash_table_iter_next (&iter, &key, &box))
    g_hash_table_insert (layout->child_boxes, renamed (names, key), g_memdup2 (box, sizeof (OnyxRect)));
  for (guint i = 0; i < cached->edges->len; i++)
    {
      const LevelEdge *edge = &g_array_index (cached->edges, LevelEdge, i);
      LevelEdge copy = *edge;
      copy.from_key = renamed (names, edge->from_key);
      copy.to_key = renamed (names, edge->to_key);
      copy.tensor = g_strdup (edge->tensor);
      copy.points = g_array_copy (edge->points);
      g_array_append_val (layout->edges, copy);
    }
  return layout;
}

/* The memory cache */

static void
memory_entry_free (MemoryEntry *entry)
{
  g_free (entry->key);
  onyx_layout_group_layout_unref (entry->layout);
  g_free (entry);
}

void
onyx_layout_memory_cache_init (OnyxLayoutEngine *engine)
{
  engine->cache = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) memory_entry_free);
  g_queue_init (&engine->cache_order);
  engine->cache_max_bytes = ONYX_LAYOUT_MEMORY_CACHE_MAX_BYTES;
  g_mutex_init (&engine->cache_lock);
}

void
onyx_layout_memory_cache_clear (OnyxLayoutEngine *engine)
{
  g_queue_init (&engine->cache_order);
  g_hash_table_unref (engine->cache);
  g_mutex_clear (&engine->cache_lock);
}

GroupLayout *
onyx_layout_memory_cache_lookup (OnyxLayoutEngine *engine, const char *key)
{
  MemoryEntry *entry;
  GroupLayout *layout = NULL;

  g_mutex_lock (&engine->cache_lock);
  entry = g_hash_table_lookup (engine->cache, key);
  if (entry != NULL)
    {
      g_queue_unlink (&engine->cache_order, &entry->link);
      g_queue_push_head_link (&engine->cache_order, &entry->link);
      layout = onyx_layout_group_layout_ref (entry->layout);
      engine->cache_stats.hits++;
    }
  else
    engine->cache_stats.misses++;
  g_mutex_unlock (&engine->cache_lock);
  return layout;
}

/* Drops the least recently used while over the bound, but never the newest. */
static void
evict_memory (OnyxLayoutEngine *engine)
{
  while (engine->cache_bytes > engine->cache_max_bytes && engine->cache_order.length > 1)
    {
      MemoryEntry *entry = g_queue_pop_tail_link (&engine->cache_order)->data;
      engine->cache_bytes -= entry->layout->bytes;
      engine->cache_stats.evictions++;
      g_hash_table_remove (engine->cache, entry->key);
    }
}

void
onyx_layout_memory_cache_insert (OnyxLayoutEngine *engine, const char *key, GroupLayout *layout)
{
  MemoryEntry *entry = g_new0 (MemoryEntry, 1);
  MemoryEntry *old;

  entry->key = g_strdup (key);
  entry->layout = onyx_layout_group_layout_ref (layout);
  entry->link.data = entry;
  g_mutex_lock (&engine->cache_lock);
  if ((old = g_hash_table_lookup (engine->cache, key)) != NULL)
    {
      g_queue_unlink (&engine->cache_order, &old->link);
      engine->cache_bytes -= old->layout->bytes;
      g_hash_table_remove (engine->cache, key);
    }
  g_hash_table_insert (engine->cache, entry->key, entry);
  g_queue_push_head_link (&engine->cache_order, &entry->link);
  engine->cache_bytes += layout->bytes;
  engine->cache_stats.stores++;
  evict_memory (engine);
  g_mutex_unlock (&engine->cache_lock);
}

void
onyx_layout_engine_set_memory_limit (OnyxLayoutEngine *engine, gsize max_bytes)
{
  g_mutex_lock (&engine->cache_lock);
  engine->cache_max_bytes = max_bytes;
  evict_memory (engine);
  g_mutex_unlock (&engine->cache_lock);
}

void
onyx_layout_engine_get_memory_stats (OnyxLayoutEngine *engine, OnyxLayoutCacheStats *stats)
{
  g_mutex_lock (&engine->cache_lock);
  *stats = engine->cache_stats;
  g_mutex_unlock (&engine->cache_lock);
}

/* Dot results */

DotResult *
onyx_layout_dot_result_new (guint n_boxes)
{
  DotResult *result = g_new0 (DotResult, 1);

  result->boxes = g_array_sized_new (FALSE, TRUE, sizeof (OnyxRect), n_boxes);
  result->splines = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  result->labels = g_array_new (FALSE, TRUE, sizeof (OnyxRect));
  return result;
}

void
onyx_layout_dot_result_free (DotResult *result)
{
  if (result == NULL)
    return;
  g_array_unref (result->boxes);
  g_ptr_array_unref (result->splines);
  g_array_unref (result->labels);
  g_free (result);
}

/* The disk cache */

char *
onyx_layout_disk_cache_key (const char *dot_input)
{
  g_autoptr (GChecksum) checksum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree char *versions = g_strdup_printf ("onyx-layout-cache %d\ngraphviz %s\n", FORMAT_VERSION,
                                               PACKAGE_VERSION);

  g_checksum_update (checksum, (const guchar *) versions, -1);
  g_checksum_update (checksum, (const guchar *) dot_input, -1);
  return g_strdup (g_checksum_get_string (checksum));
}

OnyxLayoutDiskCache *
onyx_layout_disk_cache_new (const char *dir, guint64 max_bytes)
{
  OnyxLayoutDiskCache *cache = g_atomic_rc_box_new0 (OnyxLayoutDiskCache);

  cache->dir = g_strdup (dir);
  cache->max_bytes = max_bytes;
  g_mutex_init (&cache->lock);
  return cache;
}

OnyxLayoutDiskCache *
onyx_layout_disk_cache_ref (OnyxLayoutDiskCache *cache)
{
  return g_atomic_rc_box_acquire (cache);
}

static void
clear_disk_cache (OnyxLayoutDiskCache *cache)
{
  g_free (cache->dir);
  g_mutex_clear (&cache->lock);
}

void
onyx_layout_disk_cache_unref (OnyxLayoutDiskCache *cache)
{
  if (cache != NULL)
    g_atomic_rc_box_release_full (cache, (GDestroyNotify) clear_disk_cache);
}

const char *
onyx_layout_disk_cache_get_dir (OnyxLayoutDiskCache *cache)
{
  return cache->dir;
}

void
onyx_layout_disk_cache_get_stats (OnyxLayoutDiskCache *cache, OnyxLayoutCacheStats *stats)
{
  g_mutex_lock (&cache->lock);
  *stats = cache->stats;
  g_mutex_unlock (&cache->lock);
}

static GMutex default_lock;
static OnyxLayoutDiskCache *default_cache;
static gboolean default_chosen;

OnyxLayoutDiskCache *
onyx_layout_disk_cache_get_default (void)
{
  OnyxLayoutDiskCache *cache;

  g_mutex_lock (&default_lock);
  if (!default_chosen)
    {
      const char *dir = g_getenv ("ONYX_LAYOUT_CACHE_DIR");
      g_autofree char *user_dir = g_build_filename (g_get_user_cache_dir (), "onyx", "layout", NULL);
      default_chosen = TRUE;
      if (dir == NULL)
        dir = user_dir;
      if (dir[0] != '\0')
        default_cache = onyx_layout_disk_cache_new (dir, ONYX_LAYOUT_DISK_CACHE_MAX_BYTES);
    }
  cache = default_cache;
  g_mutex_unlock (&default_lock);
  return cache;
}

void
onyx_layout_disk_cache_set_default (OnyxLayoutDiskCache *cache)
{
  g_mutex_lock (&default_lock);
  g_clear_pointer (&default_cache, onyx_layout_disk_cache_unref);
  default_cache = cache != NULL ? onyx_layout_disk_cache_ref (cache) : NULL;
  default_chosen = TRUE;
  g_mutex_unlock (&default_lock);
}

static char *
file_of_key (OnyxLayoutDiskCache *cache, const char *key)
{
  g_autofree char *name = g_strconcat (key, FILE_SUFFIX, NULL);
  return g_build_filename (cache->dir, name, NULL);
}

/* Reads `count` doubles at `*at`, all finite. */
static gboolean
read_doubles (const char **at, guint64 count, double *out)
{
  /* An empty list may come with no array at all: memcpy takes no NULL. */
  if (count == 0)
    return TRUE;
  memcpy (out, *at, count * sizeof (double));
  *at += count * sizeof (double);
  for (guint64 i = 0; i < count; i++)
    if (!isfinite (out[i]))
      return FALSE;
  return TRUE;
}

static DotResult *
parse (const char *data, gsize length, const char *key, guint n_boxes, guint n_edges)
{
  g_autoptr (DotResult) result = NULL;
  FileHeader header;
  const char *at = data + sizeof header;
  guint64 expected, spline_total = 0;

  if (length < sizeof header)
    return NULL;
  memcpy (&header, data, sizeof header);
  if (memcmp (header.magic, MAGIC, sizeof header.magic) != 0 || header.version != FORMAT_VERSION ||
      header.byte_order != BYTE_ORDER_MARK || memcmp (header.key, key, KEY_LENGTH) != 0 ||
      header.n_boxes != n_boxes || header.n_edges != n_edges || !isfinite (header.width) ||
      !isfinite (header.height))
    return NULL;
  /* 64-bit sums of 32-bit counts cannot overflow. */
  expected = sizeof header + (guint64) header.n_boxes * 4 * sizeof (double) +
             (guint64) header.n_edges * (4 * sizeof (double) + sizeof (guint32)) + (guint64) header.n_doubles * sizeof (double);
  if (expected != length)
    return NULL;

  result = onyx_layout_dot_result_new (n_boxes);
  result->width = header.width;
  result->height = header.height;
  g_array_set_size (result->boxes, n_boxes);
  if (!read_doubles (&at, (guint64) n_boxes * 4, (double *) (void *) result->boxes->data))
    return NULL;
  g_array_set_size (result->labels, n_edges);
  if (!read_doubles (&at, (guint64) n_edges * 4, (double *) (void *) result->labels->data))
    return NULL;
  {
    const char *counts = at;
    at += (gsize) n_edges * sizeof (guint32);
    for (guint e = 0; e < n_edges; e++)
      {
        guint32 count;
        GArray *points;
        memcpy (&count, counts + e * sizeof count, sizeof count);
        spline_total += count;
        if (count % 2 != 0 || spline_total > header.n_doubles)
          return NULL;
        points = g_array_sized_new (FALSE, FALSE, sizeof (double), count);
        g_array_set_size (points, count);
        g_ptr_array_add (result->splines, points);
        if (!read_doubles (&at, count, (double *) (void *) points->data))
          return NULL;
      }
  }
  if (spline_total != header.n_doubles)
    return NULL;
  return g_steal_pointer (&result);
}

DotResult *
onyx_layout_disk_cache_load (OnyxLayoutDiskCache *cache, const char *key, guint n_boxes, guint n_edges)
{
  g_autofree char *path = file_of_key (cache, key);
  g_autofree char *data = NULL;
  gsize length;
  DotResult *result = NULL;
  gboolean found = g_file_get_contents (path, &data, &length, NULL);

  if (found)
    {
      result = parse (data, length, key, n_boxes, n_edges);
      if (result != NULL)
        g_utime (path, NULL); /* recently used: the last to be evicted */
      else
        g_unlink (path);
    }
  g_mutex_lock (&cache->lock);
  if (result != NULL)
    cache->stats.hits++;
  else
    cache->stats.misses++;
  if (found && result == NULL)
    {
      cache->stats.rejected++;
      cache->counted = FALSE;
    }
  g_mutex_unlock (&cache->lock);
  return result;
}

typedef struct {
  char *path;
  gint64 mtime;
  guint64 size;
} CacheFile;

static void
cache_file_clear (CacheFile *file)
{
  g_free (file->path);
}

static int
compare_by_mtime (gconstpointer a, gconstpointer b)
{
  const CacheFile *x = a, *y = b;
  return x->mtime < y->mtime ? -1 : x->mtime > y->mtime ? 1 : strcmp (x->path, y->path);
}

/* The folder's layout files, oldest first. */
static GArray *
list_files (OnyxLayoutDiskCache *cache, guint64 *total)
{
  GArray *files = g_array_new (FALSE, FALSE, sizeof (CacheFile));
  g_autoptr (GDir) dir = g_dir_open (cache->dir, 0, NULL);
  const char *name;

  g_array_set_clear_func (files, (GDestroyNotify) cache_file_clear);
  *total = 0;
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      CacheFile file = { g_build_filename (cache->dir, name, NULL), 0, 0 };
      GStatBuf info;
      if (!g_str_has_suffix (name, FILE_SUFFIX) || g_stat (file.path, &info) != 0)
        {
          g_free (file.path);
          continue;
        }
      file.mtime = (gint64) info.st_mtim.tv_sec * G_USEC_PER_SEC + info.st_mtim.tv_nsec / 1000;
      file.size = (guint64) info.st_size;
      *total += file.size;
      g_array_append_val (files, file);
    }
  g_array_sort (files, compare_by_mtime);
  return files;
}

/* Called with the lock held. Other processes share the folder: count it again
 * before removing anything. */
static void
evict_files (OnyxLayoutDiskCache *cache, const char *keep)
{
  g_autoptr (GArray) files = NULL;

  if (cache->counted && cache->bytes <= cache->max_bytes)
    return;
  files = list_files (cache, &cache->bytes);
  cache->counted = TRUE;
  for (guint i = 0; i < files->len && cache->bytes > cache->max_bytes; i++)
    {
      const CacheFile *file = &g_array_index (files, CacheFile, i);
      if (strcmp (file->path, keep) == 0 || (g_unlink (file->path) != 0 && errno != ENOENT))
        continue;
      cache->bytes -= file->size;
      cache->stats.evictions++;
    }
}

static GByteArray *
serialize (const char *key, const DotResult *result)
{
  GByteArray *bytes = g_byte_array_new ();
  FileHeader header = { MAGIC, FORMAT_VERSION, BYTE_ORDER_MARK, { 0 }, result->boxes->len,
                        result->splines->len, 0, 0, result->width, result->height };

  memcpy (header.key, key, KEY_LENGTH);
  for (guint e = 0; e < result->splines->len; e++)
    header.n_doubles += ((GArray *) result->splines->pdata[e])->len;
  g_byte_array_append (bytes, (const guint8 *) &header, sizeof header);
  g_byte_array_append (bytes, (const guint8 *) result->boxes->data, result->boxes->len * sizeof (OnyxRect));
  g_byte_array_append (bytes, (const guint8 *) result->labels->data, result->labels->len * sizeof (OnyxRect));
  for (guint e = 0; e < result->splines->len; e++)
    {
      guint32 count = ((GArray *) result->splines->pdata[e])->len;
      g_byte_array_append (bytes, (const guint8 *) &count, sizeof count);
    }
  for (guint e = 0; e < result->splines->len; e++)
    {
      GArray *points = result->splines->pdata[e];
      g_byte_array_append (bytes, (const guint8 *) points->data, points->len * sizeof (double));
    }
  return bytes;
}

void
onyx_layout_disk_cache_store (OnyxLayoutDiskCache *cache, const char *key, const DotResult *result)
{
  g_autofree char *path = file_of_key (cache, key);
  g_autoptr (GByteArray) bytes = NULL;
  gboolean written;

  G_STATIC_ASSERT (sizeof (OnyxRect) == 4 * sizeof (double));
  g_return_if_fail (strlen (key) == KEY_LENGTH);
  bytes = serialize (key, result);
  /* A cache that cannot be written only costs time: no error to report. */
  if (g_mkdir_with_parents (cache->dir, 0700) != 0)
    return;
  /* Temp file and rename: a reader sees the old file or the whole new one. */
  written = g_file_set_contents_full (path, (const char *) bytes->data, bytes->len,
                                      G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_ONLY_EXISTING,
                                      0644, NULL);
  g_mutex_lock (&cache->lock);
  if (written)
    {
      cache->stats.stores++;
      cache->bytes += bytes->len;
      evict_files (cache, path);
    }
  g_mutex_unlock (&cache->lock);
}

guint64
onyx_layout_disk_cache_get_bytes (OnyxLayoutDiskCache *cache)
{
  guint64 bytes;

  g_mutex_lock (&cache->lock);
  if (!cache->counted)
    {
      /* Listing counts the bytes; the list itself is not wanted here. */
      g_array_unref (list_files (cache, &cache->bytes));
      cache->counted = TRUE;
    }
  bytes = cache->bytes;
  g_mutex_unlock (&cache->lock);
  return bytes;
}

void
onyx_layout_engine_set_disk_cache (OnyxLayoutEngine *engine, OnyxLayoutDiskCache *cache)
{
  if (cache != NULL)
    onyx_layout_disk_cache_ref (cache);
  onyx_layout_disk_cache_unref (engine->disk_cache);
  engine->disk_cache = cache;
}
