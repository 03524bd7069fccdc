/* onyx-layout-expand.c: which groups show. A group is open when its scope path is in
 * the run's expansion set; the policies here choose that set, and say which box
 * stands for a group among its parent's children. */
#include "onyx-layout-private.h"

#include <string.h>

/* AUTO expansion opens groups while about this many boxes show. */
#define AUTO_VISIBLE_BOXES 200

/* A group with no items of its own and one subgroup is shown as that subgroup. */
Group *
onyx_layout_effective_group (Group *group)
{
  while (group->items->len == 0 && group->groups->len == 1)
    group = group->groups->pdata[0];
  return group;
}

/* The item of a group that holds exactly one (in any depth), else -1: such a group
 * is shown as its item, not as a box around it. */
static int
single_item (Group *group)
{
  if (group->n_items_total != 1)
    return -1;
  while (group->items->len == 0)
    group = group->groups->pdata[0];
  return g_array_index (group->items, int, 0);
}

/* The key of the box standing for a subgroup among its parent's children. */
char *
onyx_layout_subgroup_key (Group *group)
{
  Group *shown = onyx_layout_effective_group (group);
  int item = single_item (shown);
  return item >= 0 ? g_strdup_printf ("i:%d", item) : g_strdup_printf ("g:%s", shown->path);
}

/* Boxes a group shows when open: its items and its subgroups (a subgroup holding a
 * single item shows that item). */
guint
onyx_layout_n_children (Group *group)
{
  return group->items->len + group->groups->len;
}

static void
expand_all (Group *group, GHashTable *expanded)
{
  g_hash_table_add (expanded, g_strdup (group->path));
  for (guint i = 0; i < group->groups->len; i++)
    expand_all (group->groups->pdata[i], expanded);
}

static int
compare_groups_by_size (gconstpointer a, gconstpointer b)
{
  const Group *x = *(Group *const *) a, *y = *(Group *const *) b;
  return x->n_items_total < y->n_items_total ? 1 : x->n_items_total > y->n_items_total ? -1 : 0;
}

GHashTable *
onyx_layout_engine_expansion (OnyxLayoutEngine *engine, OnyxExpandMode mode,
                              const char *const *extra_expanded, const char *const *collapsed)
{
  GHashTable *expanded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  Group *root = onyx_layout_effective_group (engine->root);

  g_hash_table_add (expanded, g_strdup (""));
  g_hash_table_add (expanded, g_strdup (root->path));
  if (mode == ONYX_EXPAND_ALL)
    expand_all (engine->root, expanded);
  else if (mode == ONYX_EXPAND_AUTO)
    {
      /* Open the biggest closed group while the boxes shown stay few. */
      g_autoptr (GPtrArray) closed = g_ptr_array_new ();
      guint visible = onyx_layout_n_children (root);
      for (guint i = 0; i < root->groups->len; i++)
        g_ptr_array_add (closed, onyx_layout_effective_group (root->groups->pdata[i]));
      while (closed->len > 0)
        {
          Group *group;
          g_ptr_array_sort (closed, compare_groups_by_size);
          group = g_ptr_array_steal_index (closed, 0);
          if (visible + onyx_layout_n_children (group) - 1 > AUTO_VISIBLE_BOXES)
            continue;
          visible += onyx_layout_n_children (group) - 1;
          g_hash_table_add (expanded, g_strdup (group->path));
          for (guint i = 0; i < group->groups->len; i++)
            g_ptr_array_add (closed, onyx_layout_effective_group (group->groups->pdata[i]));
        }
    }
  for (guint i = 0; extra_expanded != NULL && extra_expanded[i] != NULL; i++)
    {
      /* Opening a scope opens the scopes around it too. */
      const char *path = extra_expanded[i][0] == '/' ? extra_expanded[i] + 1 : extra_expanded[i];
      for (const char *slash = strchr (path, '/'); slash != NULL; slash = strchr (slash + 1, '/'))
        g_hash_table_add (expanded, g_strndup (path, slash - path));
      g_hash_table_add (expanded, g_strdup (path));
    }
  for (guint i = 0; collapsed != NULL && collapsed[i] != NULL; i++)
    g_hash_table_remove (expanded, collapsed[i][0] == '/' ? collapsed[i] + 1 : collapsed[i]);
  return expanded;
}

gboolean
onyx_layout_is_open (Run *run, Group *group)
{
  return g_hash_table_contains (run->expanded, group->path);
}

void
onyx_layout_expansion_signature (Run *run, Group *group, GString *out)
{
  if (!onyx_layout_is_open (run, group))
    return;
  g_string_append_printf (out, "+%s", group->path);
  for (guint i = 0; i < group->groups->len; i++)
    onyx_layout_expansion_signature (run, onyx_layout_effective_group (group->groups->pdata[i]), out);
}

