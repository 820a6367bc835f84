# <template>:<tag>
terraform import e2b_template_tag.prod my-app:prod
