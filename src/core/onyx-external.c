#include "onyx-external.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "onyx-error.h"

gboolean
onyx_tensor_is_external (const Onnx__TensorProto *tensor)
{
  return tensor->has_data_location &&
         tensor->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
}

static const char *
external_entry (const Onnx__TensorProto *tensor, const char *key)
{
  for (size_t i = 0; i < tensor->n_external_data; i++)
    {
      const Onnx__StringStringEntryProto *entry = tensor->external_data[i];
      if (entry->key != NULL && strcmp (entry->key, key) == 0)
        return entry->value;
    }
  return NULL;
}

const char *
onyx_tensor_external_location (const Onnx__TensorProto *tensor)
{
  return external_entry (tensor, "location");
}

static gboolean
has_parent_component (const char *location)
{
  g_auto (GStrv) parts = g_regex_split_simple ("[/\\\\]", location, 0, 0);
  for (guint i = 0; parts[i] != NULL; i++)
    if (strcmp (parts[i], "..") == 0)
      return TRUE;
  return FALSE;
}

static gboolean
looks_absolute (const char *location)
{
  /* Windows drive letters and UNC paths are absolute too, whatever this OS says. */
  return g_path_is_absolute (location) || location[0] == '\\' ||
         (g_ascii_isalpha (location[0]) && location[1] == ':');
}

static gboolean
external_fail (GError **error, const char *display_name, const Onnx__TensorProto *tensor,
               const char *location, const char *why)
{
  g_set_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_EXTERNAL_DATA,
               _("%s: external data of tensor '%s' at '%s' refused: %s"), display_name,
               tensor->name != NULL ? tensor->name : "", location != NULL ? location : "", why);
  return FALSE;
}

/* Resolves `location` inside `base_dir`. Returns NULL with `why` set when refused;
 * a file that does not exist yet is not refused (it is reported when read). */
static char *
resolve_location (const char *base_dir, const char *location, const char **why)
{
  g_autofree char *joined = NULL;
  g_autofree char *real_dir = NULL;
  char *real_file;
  GStatBuf st;

  if (location == NULL || *location == '\0')
    return (*why = _("it has no location"), NULL);
  if (base_dir == NULL)
    return (*why = _("the model was not loaded from a file"), NULL);
  if (looks_absolute (location))
    return (*why = _("absolute paths are not allowed"), NULL);
  if (has_parent_component (location))
    return (*why = _("the path leaves the model's folder"), NULL);

  joined = g_build_filename (base_dir, location, NULL);
  if (g_stat (joined, &st) != 0)
    return g_steal_pointer (&joined);
  if (!S_ISREG (st.st_mode))
    return (*why = _("it is not a regular file"), NULL);
  real_dir = realpath (base_dir, NULL);
  real_file = realpath (joined, NULL);
  if (real_dir == NULL || real_file == NULL ||
      !g_str_has_prefix (real_file, real_dir) || real_file[strlen (real_dir)] != '/')
    {
      free (real_file);
      return (*why = _("it links outside the model's folder"), NULL);
    }
  free (real_file);
  return g_steal_pointer (&joined);
}

typedef struct {
  const char *display_name;
  const char *base_dir;
  GError *error;
} CheckModel;

static void
check_tensor (Onnx__TensorProto *tensor, gpointer user_data)
{
  CheckModel *check = user_data;
  const char *why = NULL;
  char *resolved;

  if (check->error != NULL || !onyx_tensor_is_external (tensor))
    return;
  resolved = resolve_location (check->base_dir, onyx_tensor_external_location (tensor), &why);
  if (resolved == NULL)
    external_fail (&check->error, check->display_name, tensor,
                   onyx_tensor_external_location (tensor), why);
  g_free (resolved);
}

gboolean
onyx_external_check_model (Onnx__ModelProto *model, const char *display_name,
                           const char *base_dir, GError **error)
{
  CheckModel check = { display_name, base_dir, NULL };

  onyx_proto_foreach_tensor (&model->base, check_tensor, &check);
  if (check.error != NULL)
    {
      g_propagate_error (error, check.error);
      return FALSE;
    }
  return TRUE;
}

static void
count_external (Onnx__TensorProto *tensor, gpointer user_data)
{
  if (onyx_tensor_is_external (tensor))
    (*(guint *) user_data)++;
}

gboolean
onyx_external_check_save_dir (Onnx__ModelProto *model, const char *display_name,
                              const char *base_dir, const char *target_dir, GError **error)
{
  guint n_external = 0;
  g_autofree char *real_base = NULL;
  g_autofree char *real_target = NULL;

  onyx_proto_foreach_tensor (&model->base, count_external, &n_external);
  if (n_external == 0)
    return TRUE;
  real_base = base_dir != NULL ? realpath (base_dir, NULL) : NULL;
  real_target = realpath (target_dir, NULL);
  if (real_base != NULL && real_target != NULL && strcmp (real_base, real_target) == 0)
    return TRUE;
  g_set_error (error, ONYX_MODEL_ERROR, ONYX_MODEL_ERROR_EXTERNAL_DATA,
               ngettext ("%s: %u tensor keeps its data in a file beside the model; "
                         "save it in its own folder so that the file is still found",
                         "%s: %u tensors keep their data in files beside the model; "
                         "save it in its own folder so that those files are still found",
                         n_external),
               display_name, n_external);
  return FALSE;
}

static gboolean
parse_size (const char *text, guint64 *value)
{
  return text == NULL || g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, value, NULL);
}

GBytes *
onyx_external_read (const Onnx__TensorProto *tensor, const char *base_dir, GError **error)
{
  const char *location = onyx_tensor_external_location (tensor);
  const char *why = NULL;
  g_autofree char *path = resolve_location (base_dir, location, &why);
  guint64 offset = 0, length = G_MAXUINT64;
  GMappedFile *mapping;
  GBytes *whole, *part;
  GError *local_error = NULL;
  gsize size;

  if (path == NULL)
    return external_fail (error, "model", tensor, location, why), NULL;
  if (!parse_size (external_entry (tensor, "offset"), &offset) ||
      !parse_size (external_entry (tensor, "length"), &length))
    return external_fail (error, "model", tensor, location, _("offset or length is not a number")), NULL;
  mapping = g_mapped_file_new (path, FALSE, &local_error);
  if (mapping == NULL)
    {
      external_fail (error, "model", tensor, location, local_error->message);
      g_error_free (local_error);
      return NULL;
    }
  whole = g_mapped_file_get_bytes (mapping);
  g_mapped_file_unref (mapping);
  size = g_bytes_get_size (whole);
  if (length == G_MAXUINT64)
    length = offset <= size ? size - offset : 0;
  if (offset > size || length > size - offset)
    {
      g_bytes_unref (whole);
      external_fail (error, "model", tensor, location, _("offset and length run past the end of the file"));
      return NULL;
    }
  part = g_bytes_new_from_bytes (whole, offset, length);
  g_bytes_unref (whole);
  return part;
}
