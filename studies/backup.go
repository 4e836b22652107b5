package studies
