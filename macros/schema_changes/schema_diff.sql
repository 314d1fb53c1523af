{#- Compare a table's columns with the model query's, both [(name, type)]; names compare
    case-insensitively, types by Spark's type text. A dropped column or a changed type is
    destructive; an added column is not.
    Returns {added: [(name, type)], dropped: [name], changed: [(name, old type, new type)],
    destructive: bool, description: text}. -#}
{% macro _schema_diff(old_columns, new_columns) -%}
  {%- set old = {} -%}
  {%- for name, type in old_columns -%}
    {%- do old.update({name | lower: type | lower}) -%}
  {%- endfor -%}
  {%- set new = {} -%}
  {%- for name, type in new_columns -%}
    {%- do new.update({name | lower: type | lower}) -%}
  {%- endfor -%}
  {%- set diff = {'added': [], 'dropped': [], 'changed': []} -%}
  {%- for name, type in new_columns if name | lower not in old -%}
    {%- do diff.added.append((name | lower, type | lower)) -%}
  {%- endfor -%}
  {%- for name, type in old_columns -%}
    {%- if name | lower not in new -%}
      {%- do diff.dropped.append(name | lower) -%}
    {%- elif new[name | lower] != type | lower -%}
      {%- do diff.changed.append((name | lower, type | lower, new[name | lower])) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set parts = [] -%}
  {%- if diff.dropped | length > 0 -%}
    {%- do parts.append('dropped ' ~ diff.dropped | join(', ')) -%}
  {%- endif -%}
  {%- for name, old_type, new_type in diff.changed -%}
    {%- do parts.append(name ~ ' changed type ' ~ old_type ~ ' -> ' ~ new_type) -%}
  {%- endfor -%}
  {%- for name, type in diff.added -%}
    {%- do parts.append('added ' ~ name ~ ' ' ~ type) -%}
  {%- endfor -%}
  {%- do diff.update({
      'destructive': diff.dropped | length + diff.changed | length > 0,
      'description': parts | join('; '),
  }) -%}
  {{- return(diff) -}}
{%- endmacro %}
