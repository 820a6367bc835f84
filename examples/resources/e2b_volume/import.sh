# A volume is imported by its ID or by its name.
terraform import e2b_volume.cache build-cache
