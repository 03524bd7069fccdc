/* onyx-torch-names.c: module paths and classes out of torch's function names. */
#include "onyx-torch-names.h"

#include <string.h>

struct _OnyxTorchModules {
  /* The module path's parts, split at dots and underscores and joined by `_`
   * ("model_decoder_layers_0_self_attn") → the path ("model.decoder.layers.0.self_attn"). */
  GHashTable *by_key;
};

OnyxTorchModules *
onyx_torch_modules_new (void)
{
  OnyxTorchModules *modules = g_new0 (OnyxTorchModules, 1);

  modules->by_key = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  return modules;
}

void
onyx_torch_modules_free (OnyxTorchModules *modules)
{
  if (modules == NULL)
    return;
  g_hash_table_unref (modules->by_key);
  g_free (modules);
}

/* The non-empty parts of `text` between the characters of `separators`. */
static GPtrArray *
split_parts (const char *text, gsize length, const char *separators)
{
  GPtrArray *parts = g_ptr_array_new_with_free_func (g_free);
  gsize start = 0;

  for (gsize i = 0; i <= length; i++)
    if (i == length || strchr (separators, text[i]) != NULL)
      {
        if (i > start)
          g_ptr_array_add (parts, g_strndup (text + start, i - start));
        start = i + 1;
      }
  return parts;
}

static char *
join_parts (GPtrArray *parts, guint from, guint to, const char *separator)
{
  GString *out = g_string_new (NULL);

  for (guint i = from; i < to; i++)
    g_string_append_printf (out, "%s%s", i > from ? separator : "", (const char *) parts->pdata[i]);
  return g_string_free (out, FALSE);
}

void
onyx_torch_modules_add_name (OnyxTorchModules *modules, const char *name)
{
  const char *dot;

  if (name == NULL)
    return;
  /* Every dot ends a module path: "a.b.weight" holds "a" and "a.b". */
  for (dot = strchr (name, '.'); dot != NULL; dot = strchr (dot + 1, '.'))
    {
      g_autoptr (GPtrArray) parts = split_parts (name, dot - name, "._");
      g_autofree char *key = NULL;

      if (parts->len == 0)
        continue;
      key = join_parts (parts, 0, parts->len, "_");
      if (!g_hash_table_contains (modules->by_key, key))
        g_hash_table_insert (modules->by_key, g_steal_pointer (&key), g_strndup (name, dot - name));
    }
}

void
onyx_torch_modules_add_graph (OnyxTorchModules *modules, const Onnx__GraphProto *graph)
{
  for (size_t i = 0; i < graph->n_initializer; i++)
    onyx_torch_modules_add_name (modules, graph->initializer[i]->name);
  for (size_t i = 0; i < graph->n_input; i++)
    onyx_torch_modules_add_name (modules, graph->input[i]->name);
}

void
onyx_torch_call_clear (OnyxTorchCall *call)
{
  g_clear_pointer (&call->path, g_free);
  g_clear_pointer (&call->class_name, g_free);
}

static gboolean
all_digits (const char *text)
{
  gsize n = strlen (text);
  return n > 0 && n <= 9 && strspn (text, "0123456789") == n;
}

/* A part of a Python module path: "transformers", "modeling_gpt2", "" (of "__main__"). */
static gboolean
is_package_part (const char *text)
{
  return strspn (text, "abcdefghijklmnopqrstuvwxyz0123456789") == strlen (text);
}

static gboolean
is_class_name (const char *text)
{
  for (const char *p = text; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p))
      return FALSE;
  return g_ascii_isupper (text[0]);
}

/* The dotted path of `parts` [0, n): the longest run from the start that is a known
 * module, then what modules without parameters follow it: indices of a container
 * ("blocks" then "1", "0") and a name ("activation_fn"). */
static char *
resolve_path (const OnyxTorchModules *modules, GPtrArray *parts, guint n)
{
  for (guint k = n; modules != NULL && k > 0; k--)
    {
      g_autofree char *key = join_parts (parts, 0, k, "_");
      const char *known = g_hash_table_lookup (modules->by_key, key);
      GString *path;

      if (known == NULL)
        continue;
      path = g_string_new (known);
      for (; k < n && all_digits (parts->pdata[k]); k++)
        g_string_append_printf (path, ".%s", (const char *) parts->pdata[k]);
      if (k < n)
        {
          g_autofree char *rest = join_parts (parts, k, n, "_");
          g_string_append_printf (path, ".%s", rest);
        }
      return g_string_free (path, FALSE);
    }
  return join_parts (parts, 0, n, "_");
}

gboolean
onyx_torch_call_parse (const OnyxTorchModules *modules, const char *name, guint n_counters, OnyxTorchCall *out)
{
  g_auto (GStrv) tokens = NULL;
  g_autoptr (GPtrArray) parts = NULL;
  guint n_tokens, class_at, first = 0, n_path;
  gboolean package = FALSE;

  g_return_val_if_fail (n_counters >= 1, FALSE);
  if (name == NULL)
    return FALSE;
  tokens = g_strsplit (name, "_", -1);
  n_tokens = g_strv_length (tokens);
  /* The class path: a Python package path, then the class, CamelCase. */
  for (class_at = 0; class_at < n_tokens && !is_class_name (tokens[class_at]); class_at++)
    {
      if (!is_package_part (tokens[class_at]))
        return FALSE;
      package |= tokens[class_at][0] != '\0';
    }
  if (!package || class_at + 1 >= n_tokens)
    return FALSE;
  parts = g_ptr_array_new ();
  for (guint i = class_at + 1; i < n_tokens; i++)
    if (tokens[i][0] != '\0')
      g_ptr_array_add (parts, tokens[i]);
  /* Dynamo's name of an attribute access: getattr(getattr(L['self'].blocks, '0'), '0'). */
  while (first < parts->len && strcmp (parts->pdata[first], "getattr") == 0)
    first++;
  if (first + 1 < parts->len && strcmp (parts->pdata[first], "L") == 0 &&
      strcmp (parts->pdata[first + 1], "self") == 0)
    first += 2;
  g_ptr_array_remove_range (parts, 0, first);
  if (parts->len <= n_counters)
    return FALSE;
  n_path = parts->len - n_counters;
  for (guint i = n_path; i < parts->len; i++)
    if (!all_digits (parts->pdata[i]))
      return FALSE;
  out->path = resolve_path (modules, parts, n_path);
  out->class_name = g_strdup (tokens[class_at]);
  out->call = (guint) g_ascii_strtoull (parts->pdata[n_path], NULL, 10);
  return TRUE;
}

char *
onyx_torch_call_label (const OnyxTorchCall *call)
{
  return g_strdup_printf ("%s · %s", call->path, call->class_name);
}

char *
onyx_torch_op_call_function (const char *name)
{
  static const char *const libraries[] = { "aten_", "_aten_", "prims_", "_prims_" };
  const char *end;
  gboolean known = FALSE;

  if (name == NULL)
    return NULL;
  for (guint i = 0; i < G_N_ELEMENTS (libraries); i++)
    known |= g_str_has_prefix (name, libraries[i]);
  end = strrchr (name, '_');
  if (!known || end == NULL || !all_digits (end + 1) ||
      strspn (name, "_abcdefghijklmnopqrstuvwxyz0123456789") != strlen (name))
    return NULL;
  return g_strndup (name, end - name);
}
