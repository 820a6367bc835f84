# A volume file is imported by <volume_id>:<absolute path in the volume>. A text file of up to 1 MiB gets its
# content filled in: as content, or as content_base64 for a JSON object or array, which generated configuration
# would otherwise rewrite through jsonencode (whitespace, final newline, key order) and so change the file.
terraform import e2b_volume_file.config vol1a2b3c4d5e6f7g8h9:/config/serving.json
