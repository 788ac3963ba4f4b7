#ifndef VITRINE_PANGO_H
#define VITRINE_PANGO_H

#include <stddef.h>
#include <pango/pangocairo.h>

/// The Pango functions Graphics calls. They are taken from libpangocairo when text is first laid
/// out, not linked, so that a process that draws no text never maps Pango and what it brings
/// (docs/benchmarks.md). Each entry is typed by the library's own declaration.
#define VITRINE_PANGO_FUNCTIONS(F) \
    F(g_object_unref) \
    F(pango_attr_family_new) \
    F(pango_attr_foreground_alpha_new) \
    F(pango_attr_foreground_new) \
    F(pango_attr_list_insert) \
    F(pango_attr_list_new) \
    F(pango_attr_list_unref) \
    F(pango_attr_size_new_absolute) \
    F(pango_attr_weight_new) \
    F(pango_cairo_context_set_font_options) \
    F(pango_cairo_context_set_resolution) \
    F(pango_cairo_font_map_get_default) \
    F(pango_cairo_show_layout_line) \
    F(pango_context_set_round_glyph_positions) \
    F(pango_font_description_free) \
    F(pango_font_description_new) \
    F(pango_font_description_set_absolute_size) \
    F(pango_font_description_set_family) \
    F(pango_font_description_set_weight) \
    F(pango_font_map_create_context) \
    F(pango_layout_get_extents) \
    F(pango_layout_get_iter) \
    F(pango_layout_get_line_readonly) \
    F(pango_layout_is_ellipsized) \
    F(pango_layout_iter_free) \
    F(pango_layout_iter_get_baseline) \
    F(pango_layout_iter_get_line_extents) \
    F(pango_layout_iter_get_line_readonly) \
    F(pango_layout_iter_next_line) \
    F(pango_layout_line_get_extents) \
    F(pango_layout_line_get_resolved_direction) \
    F(pango_layout_new) \
    F(pango_layout_set_attributes) \
    F(pango_layout_set_ellipsize) \
    F(pango_layout_set_font_description) \
    F(pango_layout_set_height) \
    F(pango_layout_set_justify) \
    F(pango_layout_set_text) \
    F(pango_layout_set_width) \
    F(pango_layout_set_wrap)

/// One pointer per function of VITRINE_PANGO_FUNCTIONS, named as the function.
struct vitrine_pango_functions {
#define VITRINE_PANGO_FIELD(name) __typeof__(name) *_Nonnull name;
    VITRINE_PANGO_FUNCTIONS(VITRINE_PANGO_FIELD)
#undef VITRINE_PANGO_FIELD
};

/// Opens `library` (libpangocairo's file name; pango, gobject and glib come with it) and fills
/// `functions` from it. Returns 0, or -1 with the reason in `error` (cut to `error_size` bytes),
/// leaving nothing loaded. A loaded library stays loaded for the life of the process.
int vitrine_pango_load(
    const char *_Nonnull library, struct vitrine_pango_functions *_Nonnull functions, char *_Nonnull error,
    size_t error_size);

#endif
