/* empty.c — stands in for a library folder that has no sources yet. */
typedef int rb__empty_translation_unit;
