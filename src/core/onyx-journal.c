#include "onyx-journal.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "onyx-disk-queue.h"
#include "onyx-steps.h"

#define MAGIC "onyx-journal 1"

void
onyx_journal_free (OnyxJournal *journal)
{
  if (journal == NULL)
    return;
  g_free (journal->model_path);
  g_ptr_array_unref (journal->entries);
  g_free (journal);
}

char *
onyx_journal_path_for (const char *model_path)
{
  g_autofree char *absolute = g_canonicalize_filename (model_path, NULL);
  g_autofree char *hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, absolute, -1);
  g_autofree char *name = g_strdup_printf ("%.32s.journal", hash);
  return g_build_filename (g_get_user_state_dir (), "onyx", "journals", name, NULL);
}

static gboolean
stat_model (const char *path, guint64 *size, gint64 *mtime)
{
  GStatBuf st;
  if (g_stat (path, &st) != 0)
    return FALSE;
  *size = (guint64) st.st_size;
  *mtime = (gint64) st.st_mtime;
  return TRUE;
}

/* Fields are C-escaped (g_strescape), so tabs and newlines in names stay inside. */
static void
append_fields (GString *out, const char *const *fields)
{
  for (guint i = 0; fields[i] != NULL; i++)
    {
      g_autofree char *escaped = g_strescape (fields[i], NULL);
      g_string_append_printf (out, "%s%s", i > 0 ? "\t" : "", escaped);
    }
  g_string_append_c (out, '\n');
}

GBytes *
onyx_journal_serialize (OnyxDocument *doc, GError **error)
{
  const char *model_path = onyx_model_get_path (onyx_document_get_model (doc));
  g_autoptr (GPtrArray) entries = onyx_document_get_replay (doc);
  GString *out;
  const char *header[3] = { NULL, NULL, NULL };
  g_autofree char *stamp = NULL;
  guint64 size = 0;
  gint64 mtime = 0;

  if (entries->len == 0 || !onyx_document_is_modified (doc))
    return NULL;
  if (model_path == NULL || !stat_model (model_path, &size, &mtime))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT, _("the model has no file to journal against"));
      return NULL;
    }
  out = g_string_new (MAGIC "\n");
  header[0] = model_path;
  append_fields (out, header);
  stamp = g_strdup_printf ("%" G_GUINT64_FORMAT "\t%" G_GINT64_FORMAT "\n", size, mtime);
  g_string_append (out, stamp);
  for (guint i = 0; i < entries->len; i++)
    append_fields (out, entries->pdata[i]);
  return g_string_free_to_bytes (out);
}

gboolean
onyx_journal_store (const char *journal_path, GBytes *contents, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (journal_path);
  gsize len = 0;
  const char *data;

  if (contents == NULL)
    {
      if (g_unlink (journal_path) != 0 && errno != ENOENT)
        {
          int saved = errno;
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "%s: %s", journal_path,
                       g_strerror (saved));
          return FALSE;
        }
      return TRUE;
    }
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "%s: %s", dir, g_strerror (saved));
      return FALSE;
    }
  data = g_bytes_get_data (contents, &len);
  return g_file_set_contents_full (journal_path, data, (gssize) len,
                                   G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE, 0600, error);
}

typedef struct {
  char *path;
  GBytes *contents;   /* NULL: remove the journal */
} Store;

static void
store_in_thread (gpointer data, gpointer unused)
{
  Store *store = data;
  g_autoptr (GError) error = NULL;

  /* A journal that cannot be written costs only the crash protection: say so in the
   * log, do not stop the user's work. */
  if (!onyx_journal_store (store->path, store->contents, &error))
    g_warning ("cannot keep the journal of unsaved edits: %s", error->message);
  g_free (store->path);
  g_clear_pointer (&store->contents, g_bytes_unref);
  g_free (store);
}

void
onyx_journal_store_later (const char *journal_path, GBytes *contents)
{
  Store *store = g_new0 (Store, 1);

  store->path = g_strdup (journal_path);
  store->contents = contents != NULL ? g_bytes_ref (contents) : NULL;
  onyx_disk_queue_push (store_in_thread, store);
}

gboolean
onyx_journal_write (OnyxDocument *doc, const char *journal_path, GError **error)
{
  g_autoptr (GError) serialize_error = NULL;
  g_autoptr (GBytes) contents = onyx_journal_serialize (doc, &serialize_error);

  if (serialize_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&serialize_error));
      return FALSE;
    }
  return onyx_journal_store (journal_path, contents, error);
}

static GStrv
split_fields (const char *line)
{
  g_auto (GStrv) raw = g_strsplit (line, "\t", -1);
  GStrv fields = g_new0 (char *, g_strv_length (raw) + 1);
  for (guint i = 0; raw[i] != NULL; i++)
    fields[i] = g_strcompress (raw[i]);
  return fields;
}

OnyxJournal *
onyx_journal_read (const char *journal_path, GError **error)
{
  g_autofree char *contents = NULL;
  g_auto (GStrv) lines = NULL;
  g_auto (GStrv) path = NULL;
  OnyxJournal *journal;

  if (!g_file_get_contents (journal_path, &contents, NULL, error))
    return NULL;
  lines = g_strsplit (contents, "\n", -1);
  if (g_strv_length (lines) < 3 || strcmp (lines[0], MAGIC) != 0)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, _("%s: not an Onyx journal"), journal_path);
      return NULL;
    }
  journal = g_new0 (OnyxJournal, 1);
  path = split_fields (lines[1]);
  journal->model_path = g_strdup (path[0] != NULL ? path[0] : "");
  if (sscanf (lines[2], "%" G_GUINT64_FORMAT "\t%" G_GINT64_FORMAT, &journal->size, &journal->mtime) != 2)
    journal->size = G_MAXUINT64;
  journal->entries = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  for (guint i = 3; lines[i] != NULL; i++)
    if (lines[i][0] != '\0')
      g_ptr_array_add (journal->entries, split_fields (lines[i]));
  return journal;
}

gboolean
onyx_journal_matches (const OnyxJournal *journal)
{
  guint64 size;
  gint64 mtime;
  return stat_model (journal->model_path, &size, &mtime) && size == journal->size && mtime == journal->mtime;
}

gboolean
onyx_journal_replay (const OnyxJournal *journal, OnyxDocument *doc, GError **error)
{
  for (guint i = 0; i < journal->entries->len; i++)
    if (!onyx_edit_replay (doc, journal->entries->pdata[i], error))
      {
        g_prefix_error (error, _("edit %u of %u could not be restored: "), i + 1, journal->entries->len);
        return FALSE;
      }
  return TRUE;
}
