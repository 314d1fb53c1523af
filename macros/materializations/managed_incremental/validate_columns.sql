{#- Config checks that need the model's columns or compare its bounds (validate.sql
    runs the rest, before any SQL). -#}


{#- Checks that need the model's columns (from `describe query`, still no writes):
    the along / indicator column exists and has a usable type, the grace period fits
    it, unique_key / partition_by / upsert_date_key / the merge columns exist. Returns
    cfg updated with along_type, along_kind, grace_amount (see _grace_for_kind), and min/max defaults
    for date-like along columns. -#}
{% macro _managed_validate_columns(cfg, columns) -%}
  {%- set prefix = "spark_incremental: model '" ~ cfg.model ~ "': " -%}
  {%- set types = {} -%}
  {%- for name, data_type in columns -%}
    {%- do types.update({name | lower: data_type}) -%}
  {%- endfor -%}
  {%- set names = columns | map(attribute=0) | list -%}
  {%- for key, wanted in [('unique_key', cfg.unique_key), ('partition_by', cfg.partition_by),
                          ('upsert_date_key', [cfg.upsert_date_key] if cfg.upsert_date_key else []),
                          (cfg.merge_columns.key if cfg.merge_columns else 'merge_update_columns',
                           cfg.merge_columns.columns if cfg.merge_columns else [])] -%}
    {%- for column in wanted if column | lower not in types -%}
      {%- do exceptions.raise_compiler_error(prefix ~ key ~ " = '" ~ column ~ "' is not a column of the model."
          ~ " Allowed: one of its columns: " ~ names | join(', ') ~ ".") -%}
    {%- endfor -%}
  {%- endfor -%}
  {#- a list that keeps every column is refused there -#}
  {%- do spark_incremental._managed_merge_kept(cfg, columns) -%}
  {%- set result = {} -%}
  {%- do result.update(cfg) -%}
  {%- do result.update({'along_type': none, 'along_kind': none, 'grace_amount': none}) -%}
  {%- if cfg.grace is not none and cfg.along is none -%}
    {%- do exceptions.raise_compiler_error(prefix ~ "mutability.type_params.grace_period needs an along column or an indicator.") -%}
  {%- endif -%}
  {%- if cfg.along is none -%}
    {{- return(result) -}}
  {%- endif -%}
  {%- if cfg.along | lower not in types -%}
    {%- do exceptions.raise_compiler_error(prefix ~ cfg.along_key ~ " = '" ~ cfg.along ~ "' is not a column of the model."
        ~ " Allowed: one of its columns: " ~ names | join(', ') ~ ".") -%}
  {%- endif -%}
  {%- set along_type = types[cfg.along | lower] | lower -%}
  {%- set kind = spark_incremental._along_kind(along_type) -%}
  {%- if cfg.mutability_type == 'incremental_indicator' and kind not in ['integer', 'date', 'timestamp'] -%}
    {%- do exceptions.raise_compiler_error(prefix ~ cfg.along_key ~ " = '" ~ cfg.along ~ "' has type " ~ along_type
        ~ ", which cannot be a monotonically increasing indicator. Allowed types: tinyint, smallint, int, bigint,"
        ~ " decimal(p,0) (e.g. decimal(38,0)), date, timestamp.") -%}
  {%- endif -%}
  {%- if kind is none -%}
    {%- do exceptions.raise_compiler_error(prefix ~ cfg.along_key ~ " = '" ~ cfg.along ~ "' has type " ~ along_type
        ~ ", which cannot carry a high-water mark. Allowed types: date, timestamp, string ('YYYY-MM-DD'),"
        ~ " tinyint, smallint, int, bigint, decimal(p,0).") -%}
  {%- endif -%}
  {%- set grace_what = "model '" ~ cfg.model ~ "': mutability.type_params.grace_period" -%}
  {%- do result.update({
      'along_type': along_type,
      'along_kind': kind,
      'grace_amount': spark_incremental._grace_for_kind(cfg.grace, kind, grace_what),
  }) -%}
  {#- min / max: the 1000-01-01 / 9999-12-31 defaults only apply to date-like columns;
      configured values must fit the column's type -#}
  {%- for key in ['min', 'max'] -%}
    {%- set value = cfg[key] -%}
    {%- if not cfg[key ~ '_set'] -%}
      {%- do result.update({key: spark_incremental._managed_bounds(cfg, kind)[key]}) -%}
    {%- elif value is not none and kind == 'integer' and not modules.re.match('^-?\\d+$', value) -%}
      {%- do exceptions.raise_compiler_error(prefix ~ "mutability.type_params." ~ key ~ " = '" ~ value ~ "' is not allowed for "
          ~ cfg.along ~ " of type " ~ along_type ~ ": it must be a whole number.") -%}
    {%- elif value is not none and kind in ['date', 'timestamp'] and not spark_incremental._managed_is_datetime_text(value) -%}
      {%- do exceptions.raise_compiler_error(prefix ~ "mutability.type_params." ~ key ~ " = '" ~ value ~ "' is not allowed for "
          ~ cfg.along ~ " of type " ~ along_type ~ ": it must be 'YYYY-MM-DD' or 'YYYY-MM-DD HH:MM:SS'.") -%}
    {%- endif -%}
  {%- endfor -%}
  {{- return(result) -}}
{%- endmacro %}


{#- The min / max of the along window for a column of `kind` (see _along_kind; none when
    not known yet): the configured values, else the 1000-01-01 / 9999-12-31 defaults of
    the date-like types, which an integer column does not get (unbounded). The one rule,
    used by the checks above and by the run's plan (_managed_run_plan). -#}
{% macro _managed_bounds(cfg, kind) -%}
  {%- set bounds = {} -%}
  {%- for key in ['min', 'max'] -%}
    {%- do bounds.update({key: none if kind == 'integer' and not cfg[key ~ '_set'] else cfg[key]}) -%}
  {%- endfor -%}
  {{- return(bounds) -}}
{%- endmacro %}


{#- Kind of two configured bounds, for comparing them before the column type is known. -#}
{% macro _managed_bound_kind(a, b) -%}
  {%- if modules.re.match('^-?\\d+$', a | string) and modules.re.match('^-?\\d+$', b | string) -%}
    {{- return('integer') -}}
  {%- endif -%}
  {%- if spark_incremental._managed_is_datetime_text(a) and spark_incremental._managed_is_datetime_text(b) -%}
    {{- return('timestamp') -}}
  {%- endif -%}
  {{- return('string') -}}
{%- endmacro %}


{% macro _managed_is_datetime_text(value) -%}
  {%- for fmt in ['%Y-%m-%d %H:%M:%S.%f', '%Y-%m-%d %H:%M:%S', '%Y-%m-%dT%H:%M:%S', '%Y-%m-%d %H:%M', '%Y-%m-%d'] -%}
    {%- if spark_incremental._try_strptime(value | string | trim, fmt) is not none -%}
      {{- return(true) -}}
    {%- endif -%}
  {%- endfor -%}
  {{- return(false) -}}
{%- endmacro %}
