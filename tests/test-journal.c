/* Crash journals: the replay entries of any sequence of edits (with undos in
 * between), written and read back, rebuild the same model from the saved file. */
#include <glib/gstdio.h>

#include "onyx-disk-queue.h"
#include "onyx-journal.h"
#include "onyx-steps.h"
#include "onyx-test-util.h"

static char *
copy_to_temp (const char *dir, const char *source)
{
  g_autoptr (GBytes) bytes = test_read_file (source);
  g_autofree char *name = g_path_get_basename (source);
  char *path = g_build_filename (dir, name, NULL);
  g_assert_true (g_file_set_contents (path, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), NULL));
  return path;
}

static OnyxDocument *
open_doc (const char *path)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (OnyxModel) model = onyx_model_new_from_file (path, &error);
  g_assert_no_error (error);
  return onyx_document_new (model);
}

/* Returns whether the step applied. */
static gboolean
random_step (OnyxDocument *doc, GRand *rand, guint serial)
{
  g_auto (TestEdit) edit = test_random_edit (doc, TEST_EDITS_ANY, test_pick_from_rand, rand, serial);

  /* Now and then the last step is undone, and maybe redone. */
  if (g_rand_int_range (rand, 0, 4) == 0)
    {
      onyx_document_undo (doc);
      if (g_rand_boolean (rand))
        onyx_document_redo (doc);
    }
  return edit.applied;
}

static guint
check_roundtrip (const char *source, guint32 seed, guint n_steps)
{
  g_autofree char *dir = g_dir_make_tmp ("onyx-journal-XXXXXX", NULL);
  g_autofree char *model_path = copy_to_temp (dir, source);
  g_autofree char *journal_path = g_build_filename (dir, "model.journal", NULL);
  g_autoptr (OnyxDocument) doc = open_doc (model_path);
  g_autoptr (OnyxDocument) restored = NULL;
  g_autoptr (OnyxJournal) journal = NULL;
  g_autoptr (GBytes) expected = NULL;
  g_autoptr (GBytes) actual = NULL;
  g_autoptr (GError) error = NULL;
  GRand *rand = g_rand_new_with_seed (seed);
  guint n_applied = 0;

  for (guint i = 0; i < n_steps; i++)
    n_applied += random_step (doc, rand, i);
  g_assert_true (onyx_journal_write (doc, journal_path, &error));
  g_assert_no_error (error);
  expected = onyx_document_serialize (doc);

  if (!onyx_document_is_modified (doc))
    g_assert_false (g_file_test (journal_path, G_FILE_TEST_EXISTS));
  else
    {
      journal = onyx_journal_read (journal_path, &error);
      g_assert_no_error (error);
      g_assert_true (onyx_journal_matches (journal));
      restored = open_doc (journal->model_path);
      g_assert_true (onyx_journal_replay (journal, restored, &error));
      g_assert_no_error (error);
      actual = onyx_document_serialize (restored);
      g_assert_true (g_bytes_equal (expected, actual));
      g_assert_cmpuint (onyx_document_get_n_undo (restored), >, 0);
    }
  g_rand_free (rand);
  g_unlink (journal_path);
  g_unlink (model_path);
  g_rmdir (dir);
  /* Steps all undone again leave no journal: nothing of them was replayed. */
  return restored != NULL ? n_applied : 0;
}

static void
test_replay_restores_the_model (void)
{
  guint n_applied = test_on_walkthrough_seeds (check_roundtrip, 12);

  /* Of 3 × 20 × 12 = 720 steps, about 420 apply and are replayed (the rest are refused,
   * change nothing, or are undone again). */
  g_assert_cmpuint (n_applied, >=, 300);
}

static void
test_journal_lifecycle (void)
{
  g_autofree char *dir = g_dir_make_tmp ("onyx-journal-XXXXXX", NULL);
  g_autofree char *source = test_data_path ("model_foo.onnx");
  g_autofree char *model_path = copy_to_temp (dir, source);
  g_autofree char *journal_path = g_build_filename (dir, "j", "foo.journal", NULL);
  g_autoptr (OnyxDocument) doc = open_doc (model_path);
  g_autoptr (OnyxJournal) journal = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *default_path = onyx_journal_path_for (model_path);

  g_assert_true (g_str_has_prefix (default_path, g_get_user_state_dir ()));
  g_assert_true (g_str_has_suffix (default_path, ".journal"));

  g_assert_true (onyx_step_apply (doc, "bypass-op", "devtech::FooOp", &error));
  g_assert_true (onyx_journal_write (doc, journal_path, &error));
  g_assert_true (g_file_test (journal_path, G_FILE_TEST_EXISTS));
  journal = onyx_journal_read (journal_path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (journal->entries->len, ==, 1);
  g_assert_cmpstr (((char **) journal->entries->pdata[0])[0], ==, "bypass");

  /* Saved: nothing left to restore, the journal goes. */
  g_assert_true (onyx_document_save (doc, model_path, &error));
  g_assert_true (onyx_journal_write (doc, journal_path, &error));
  g_assert_false (g_file_test (journal_path, G_FILE_TEST_EXISTS));
  /* The model file changed since the journal was written: it no longer matches. */
  g_assert_false (onyx_journal_matches (journal));

  /* Stored in a thread, in the order asked: the last word is the file's. */
  {
    g_autoptr (GBytes) first = g_bytes_new_static ("first", 5);
    g_autoptr (GBytes) second = g_bytes_new_static ("second", 6);
    g_autofree char *contents = NULL;

    onyx_journal_store_later (journal_path, first);
    onyx_journal_store_later (journal_path, NULL);
    onyx_journal_store_later (journal_path, second);
    onyx_disk_queue_flush ();
    g_assert_true (g_file_get_contents (journal_path, &contents, NULL, NULL));
    g_assert_cmpstr (contents, ==, "second");
    onyx_journal_store_later (journal_path, first);
    onyx_journal_store_later (journal_path, NULL);
    onyx_disk_queue_flush ();
    g_assert_false (g_file_test (journal_path, G_FILE_TEST_EXISTS));
  }

  g_assert_true (g_file_set_contents (journal_path, "not a journal\n", -1, NULL));
  g_clear_pointer (&journal, onyx_journal_free);
  journal = onyx_journal_read (journal_path, &error);
  g_assert_null (journal);
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL);
  g_unlink (journal_path);
  {
    g_autofree char *sub = g_build_filename (dir, "j", NULL);
    g_rmdir (sub);
  }
  g_unlink (model_path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/journal/replay", test_replay_restores_the_model);
  g_test_add_func ("/journal/lifecycle", test_journal_lifecycle);
  return g_test_run ();
}
