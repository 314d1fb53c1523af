{#- The change types an operator can describe (Atoti DirectQuery's incremental refresh),
    each with the refresh operation it needs on a model whose columns carry the scope. -#}
{% macro _change_types() -%}
  {{- return({
      'ADD_ROWS': 'add rows where',
      'ADD_ROWS_WITH_DIRTY_CONDITION': 'replace scope',
      'UPDATE_ROWS': 'replace scope',
      'REMOVE_ROWS': 'remove where',
      'REMOVE_ROWS_WITH_DIRTY_CONDITION': 'replace scope',
      'MIXED_CHANGES': 'replace scope',
  }) -}}
{%- endmacro %}
