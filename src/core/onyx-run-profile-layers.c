/* onyx-run-profile-layers.c: where the time of a model's repeated layers goes. The
 * layers are the layout's stacks (onyx-layout-stacks.c: sibling groups alike but for a
 * counting number, "model/layers.0–31", whatever named them: scopes, torch's module
 * metadata or function names); a layer's parts are its groups ("attn", "mlp") and
 * the nodes directly in it. A kernel that runs several nodes of a layer or of a part
 * counts once there. */
#include "onyx-run-profile-private.h"

#include <string.h>

#include "onyx-layout.h"

/* Time per run of a set of nodes, each kernel once. */
typedef struct {
  double us;
  GHashTable *kernels;  /* const OnyxProfileKernel * counted */
} Tally;

static Tally *
tally_new (void)
{
  Tally *tally = g_new0 (Tally, 1);
  tally->kernels = g_hash_table_new (g_direct_hash, g_direct_equal);
  return tally;
}

static void
tally_free (Tally *tally)
{
  g_hash_table_unref (tally->kernels);
  g_free (tally);
}

static void
tally_add (Tally *tally, const OnyxProfileNode *node)
{
  if (node->kernel != NULL && g_hash_table_add (tally->kernels, (gpointer) node->kernel))
    tally->us += node->kernel->median_us;
  for (guint j = 0; node->joined != NULL && j < node->joined->len; j++)
    {
      const OnyxProfileKernel *kernel = node->joined->pdata[j];
      if (g_hash_table_add (tally->kernels, (gpointer) kernel))
        tally->us += kernel->median_us;
    }
}

/* A layer: its time, and its parts' (part name → Tally). */
typedef struct {
  char *path;
  Tally *whole;
  GHashTable *parts;
} Layer;

static void
layer_free (Layer *layer)
{
  g_free (layer->path);
  tally_free (layer->whole);
  g_hash_table_unref (layer->parts);
  g_free (layer);
}

static void
part_free (OnyxProfileLayerPart *part)
{
  g_free (part->name);
  g_free (part);
}

void
onyx_profile_stack_free (OnyxProfileStack *stack)
{
  g_free (stack->path);
  g_free (stack->layer);
  g_ptr_array_unref (stack->parts);
  g_free (stack);
}

/* The member of a stack that `scope` lies in, and the part of it below ("" for the
 * member itself): FALSE when it lies in none. */
static gboolean
find_member (OnyxLayoutEngine *engine, const char *scope, char **member, char **part)
{
  g_autofree char *prefix = g_strdup (scope);

  for (char *end = prefix + strlen (prefix); end > prefix;)
    {
      *end = '\0';
      if (onyx_layout_engine_stack_of_member (engine, prefix) != NULL)
        {
          const char *below = scope + strlen (prefix);
          const char *slash;
          below += below[0] == '/';
          slash = strchr (below, '/');
          *member = g_strdup (prefix);
          *part = slash != NULL ? g_strndup (below, (gsize) (slash - below)) : g_strdup (below);
          return TRUE;
        }
      while (end > prefix && *end != '/')
        end--;
    }
  return FALSE;
}

static int
by_us (gconstpointer a, gconstpointer b)
{
  double x = (*(const Layer *const *) a)->whole->us, y = (*(const Layer *const *) b)->whole->us;
  return (x < y) - (x > y);
}

static int
parts_by_us (gconstpointer a, gconstpointer b)
{
  const OnyxProfileLayerPart *x = *(const OnyxProfileLayerPart *const *) a;
  const OnyxProfileLayerPart *y = *(const OnyxProfileLayerPart *const *) b;
  return (x->us < y->us) - (x->us > y->us);
}

static OnyxProfileStack *
stack_new (const OnyxProfile *profile, const char *path, GPtrArray *layers)
{
  OnyxProfileStack *stack = g_new0 (OnyxProfileStack, 1);
  const Layer *median;
  GHashTableIter iter;
  gpointer name, tally;

  g_ptr_array_sort (layers, by_us);
  median = layers->pdata[layers->len / 2];
  stack->path = g_strdup (path);
  stack->n_layers = layers->len;
  for (guint i = 0; i < layers->len; i++)
    stack->us += ((const Layer *) layers->pdata[i])->whole->us;
  stack->share = profile->kernels_us > 0 ? stack->us / profile->kernels_us : 0;
  stack->layer = g_strdup (median->path);
  stack->layer_us = median->whole->us;
  stack->parts = g_ptr_array_new_with_free_func ((GDestroyNotify) part_free);
  g_hash_table_iter_init (&iter, median->parts);
  while (g_hash_table_iter_next (&iter, &name, &tally))
    {
      OnyxProfileLayerPart *part = g_new0 (OnyxProfileLayerPart, 1);
      part->name = g_strdup (name);
      part->us = ((const Tally *) tally)->us;
      part->share = median->whole->us > 0 ? part->us / median->whole->us : 0;
      g_ptr_array_add (stack->parts, part);
    }
  g_ptr_array_sort (stack->parts, parts_by_us);
  return stack;
}

static int
stacks_by_us (gconstpointer a, gconstpointer b)
{
  const OnyxProfileStack *x = *(const OnyxProfileStack *const *) a;
  const OnyxProfileStack *y = *(const OnyxProfileStack *const *) b;
  return (x->us < y->us) - (x->us > y->us);
}

void
onyx_profile_find_stacks (OnyxProfile *profile, OnyxModel *model)
{
  const Onnx__GraphProto *graph = onyx_model_get_proto (model)->graph;
  const OnyxProfileGraph *main_graph = profile->graphs->len > 0 ? profile->graphs->pdata[0] : NULL;
  GPtrArray *stacks = g_ptr_array_new_with_free_func ((GDestroyNotify) onyx_profile_stack_free);
  g_autoptr (OnyxLayoutEngine) engine = NULL;
  /* stack path → GPtrArray of Layer; member path → Layer */
  g_autoptr (GHashTable) layers_of = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                           (GDestroyNotify) g_ptr_array_unref);
  g_autoptr (GHashTable) layer_at = g_hash_table_new (g_str_hash, g_str_equal);
  GHashTableIter iter;
  gpointer path, layers;

  g_clear_pointer (&profile->stacks, g_ptr_array_unref);
  profile->stacks = stacks;
  if (graph == NULL || main_graph == NULL || main_graph->n_nodes != graph->n_node)
    return;
  engine = onyx_layout_engine_new (graph);
  for (guint n = 0; n < main_graph->n_nodes; n++)
    {
      const OnyxProfileNode *node = &profile->nodes[main_graph->first_node + n];
      g_autofree char *member = NULL, *part = NULL;
      Layer *layer;
      Tally *tally;

      if (node->kernel == NULL ||
          !find_member (engine, onyx_layout_engine_node_scope (engine, n), &member, &part))
        continue;
      if ((layer = g_hash_table_lookup (layer_at, member)) == NULL)
        {
          const char *stack = onyx_layout_engine_stack_of_member (engine, member);
          GPtrArray *siblings = g_hash_table_lookup (layers_of, stack);
          if (siblings == NULL)
            {
              siblings = g_ptr_array_new_with_free_func ((GDestroyNotify) layer_free);
              g_hash_table_insert (layers_of, g_strdup (stack), siblings);
            }
          layer = g_new0 (Layer, 1);
          layer->path = g_strdup (member);
          layer->whole = tally_new ();
          layer->parts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) tally_free);
          g_ptr_array_add (siblings, layer);
          g_hash_table_insert (layer_at, layer->path, layer);
        }
      if ((tally = g_hash_table_lookup (layer->parts, part)) == NULL)
        g_hash_table_insert (layer->parts, g_strdup (part), (tally = tally_new ()));
      tally_add (layer->whole, node);
      tally_add (tally, node);
    }
  g_hash_table_iter_init (&iter, layers_of);
  while (g_hash_table_iter_next (&iter, &path, &layers))
    g_ptr_array_add (stacks, stack_new (profile, path, layers));
  g_ptr_array_sort (stacks, stacks_by_us);
}
