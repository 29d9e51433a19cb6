echo ${k_out_sh}
