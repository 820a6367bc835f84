# A volume file is imported by <volume_id>:<absolute path in the volume>.
terraform import e2b_volume_file.config vol1a2b3c4d5e6f7g8h9:/config/serving.json
