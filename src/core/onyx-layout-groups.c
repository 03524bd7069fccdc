/* onyx-layout-groups.c: the tree of scope groups the items are filed under: made as
 * items are filed, counted (nodes, items) and hashed (a group's layout is cached
 * under the hash of its contents). */
#include "onyx-layout-private.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "onyx-types.h"
#include "onyx-text.h"

char *
onyx_layout_count_text (guint n_nodes)
{
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u node", "%u nodes", n_nodes), n_nodes);
}

Group *
onyx_layout_ensure_group (OnyxLayoutEngine *engine, const char *path)
{
  Group *group = g_hash_table_lookup (engine->groups, path);
  const char *slash;

  if (group != NULL)
    return group;
  group = g_new0 (Group, 1);
  group->path = g_strdup (path);
  slash = strrchr (path, '/');
  if (g_hash_table_contains (engine->module_labels, path))
    group->name = g_strdup (g_hash_table_lookup (engine->module_labels, path));
  else
    group->name = onyx_display_escape (slash != NULL ? slash + 1 : path);
  group->name = onyx_layout_cut_title (group->name);
  group->groups = g_ptr_array_new ();
  group->items = g_array_new (FALSE, FALSE, sizeof (int));
  g_hash_table_insert (engine->groups, group->path, group);
  if (path[0] != '\0')
    {
      g_autofree char *parent = slash != NULL ? g_strndup (path, slash - path) : g_strdup ("");
      group->parent = onyx_layout_ensure_group (engine, parent);
      g_ptr_array_add (group->parent->groups, group);
    }
  return group;
}

static void
count_group (OnyxLayoutEngine *engine, Group *group)
{
  group->n_items_total = group->items->len;
  group->n_nodes_total = 0;
  for (guint i = 0; i < group->items->len; i++)
    group->n_nodes_total += g_array_index (engine->items, Item, g_array_index (group->items, int, i)).kind ==
                            ONYX_LAYOUT_OP;
  group->hash = g_str_hash (group->path);
  for (guint i = 0; i < group->groups->len; i++)
    {
      Group *child = group->groups->pdata[i];
      count_group (engine, child);
      group->n_items_total += child->n_items_total;
      group->n_nodes_total += child->n_nodes_total;
      group->hash = group->hash * 31 + child->hash;
    }
}

/* An open group's layout has a port for each tensor entering or leaving it
 * (onyx-layout-dot.c): an edit outside that adds or removes a reader of what it makes
 * changes it, so the tensors crossing its side are part of its hash. */
static void
hash_ports (OnyxLayoutEngine *engine)
{
  GHashTableIter iter;
  Group *group;

  g_hash_table_iter_init (&iter, engine->groups);
  while (g_hash_table_iter_next (&iter, NULL, (gpointer *) &group))
    group->port_hash = 0;
  for (guint e = 0; e < engine->edges->len; e++)
    {
      const ItemEdge *edge = &g_array_index (engine->edges, ItemEdge, e);
      Group *from = g_array_index (engine->items, Item, edge->from).group;
      Group *to = g_array_index (engine->items, Item, edge->to).group;
      guint tensor = g_str_hash (edge->tensor != NULL ? edge->tensor : "");
      /* The groups holding one end only: below the innermost holding both. */
      for (Group *out = from; out != NULL; out = out->parent)
        {
          gboolean holds_both = FALSE;
          for (Group *around = to; around != NULL && !holds_both; around = around->parent)
            holds_both = around == out;
          if (holds_both)
            {
              for (Group *in = to; in != out; in = in->parent)
                in->port_hash = in->port_hash * 31 + tensor;
              break;
            }
          out->port_hash = out->port_hash * 31 + (tensor ^ 0x5bd1e995u);
        }
    }
}

static void
hash_group_items (OnyxLayoutEngine *engine, Group *group)
{
  for (guint i = 0; i < group->groups->len; i++)
    hash_group_items (engine, group->groups->pdata[i]);
  group->hash = group->hash * 31 + group->port_hash;
  for (guint i = 0; i < group->items->len; i++)
    {
      const Item *item = &g_array_index (engine->items, Item, g_array_index (group->items, int, i));
      group->hash = group->hash * 31 + (item->hash ^ (item->label_hash * 0x9e3779b1u));
    }
  if (group->parent != NULL)
    group->parent->hash = group->parent->hash * 31 + group->hash;
}

void
onyx_layout_group_free (Group *group)
{
  g_free (group->path);
  g_free (group->name);
  /* A stack's own members and twins (onyx-layout-stacks.c). */
  g_clear_pointer (&group->members, g_ptr_array_unref);
  g_clear_pointer (&group->twins, g_ptr_array_unref);
  g_ptr_array_unref (group->groups);
  g_array_unref (group->items);
  g_free (group);
}

void
onyx_layout_count_groups (OnyxLayoutEngine *engine)
{
  count_group (engine, engine->root);
  hash_ports (engine);
  hash_group_items (engine, engine->root);
}
